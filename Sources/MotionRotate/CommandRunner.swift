import Foundation
import MotionSync

/// What a finished command printed and how it ended.
struct CommandResult: Sendable {
    /// The exit status; 127 when the program was not found on `PATH`.
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs one command to completion, its program looked up on `PATH`, with its output captured.
/// Arguments go to the program as they are: nothing passes through a shell.
struct CommandRunner: Sendable {
    /// How long a command may take before it is killed (seconds): a compositor that stopped
    /// answering must not stall the helper for good.
    var timeout: Double = 10

    func run(_ command: [String]) -> CommandResult {
        let process = Process()
        // env does the PATH lookup (and says so on stderr, exit 127, when there is nothing to find).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return CommandResult(status: 127, stdout: "", stderr: "cannot start /usr/bin/env: \(error)")
        }
        // SIGKILL, not SIGTERM: a child inherits the blocked signals of the (dispatch) thread
        // that started it, and SIGTERM is among them.
        let watchdog = DispatchWorkItem { [pid = process.processIdentifier] in
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Both pipes drain at once, so a command filling one of them cannot block on it.
        let errorText = ErrorText()
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) { [handle = stderr.fileHandleForReading] in
            errorText.set(handle.readDataToEndOfFile())
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        watchdog.cancel()
        let killed = process.terminationReason == .uncaughtSignal
        return CommandResult(status: process.terminationStatus,
                             stdout: String(decoding: output, as: UTF8.self),
                             stderr: errorText.text + (killed ? "killed by signal \(process.terminationStatus) (commands get \(timeout) s)" : ""))
    }
}

/// Standard error of a running command, filled by the thread that drains it.
private final class ErrorText: Sendable {
    private let data = Lock(Data())

    func set(_ data: Data) { self.data.withLock { $0 = data } }
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
}
