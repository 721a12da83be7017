import Glibc

/// Where the command-line tools write: lines on standard output, unbuffered so that a pipe
/// (`| grep`) sees each as it comes, and `PROGRAM: …` messages on standard error, named after
/// the program as it was started (`motionctl`, `motiond-bench`).
public enum Console {
    public static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    public static func error(_ text: String) {
        write("\(program): \(text)\n", to: STDERR_FILENO)
    }

    /// Writes all of `text` to `descriptor` (write(2), retried after a signal and a short
    /// write); false when the descriptor refuses it (a full disk). A closed pipe ends the
    /// program with SIGPIPE, as it does other commands (`motionctl monitor | head`).
    @discardableResult
    public static func write(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// The name the program was started by.
    public static let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? "motionctl"
}
