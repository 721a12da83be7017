import MotionCore
import MotionToolSupport
/// Why a backend could not find its output or rotate it: the failing command and what it said.
struct BackendError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }

    /// A command that exited with an error (or answered one), with its standard error.
    init(command: [String], result: CommandResult) {
        let said = [result.stderr, result.stdout].map { $0.trimmingWhitespace() }.first { !$0.isEmpty }
        self.init("`\(ShellWords.quoted(command))` failed (exit \(result.status))" + (said.map { ": \($0)" } ?? ""))
    }
}
