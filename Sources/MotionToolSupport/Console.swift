import Foundation

/// Where the command-line tools write: lines on standard output, unbuffered so that a pipe
/// (`| grep`) sees each as it comes, and `PROGRAM: …` messages on standard error, named after
/// the program as it was started (`motionctl`, `motiond-bench`).
public enum Console {
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func error(_ text: String) {
        FileHandle.standardError.write(Data("\(program): \(text)\n".utf8))
    }

    /// The name the program was started by.
    public static let program = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? "motionctl"
}
