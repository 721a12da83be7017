import FoundationEssentials
import MotionToolSupport

/// A way to rotate the screen: the commands of one compositor or display server.
///
/// Rotations arrive as ``ScreenRotation``s, which know every backend's spelling; a backend only
/// picks its output and builds argument vectors (run without a shell). Queries a backend makes
/// run even with `--dry-run`: they change nothing.
protocol DisplayBackend: Sendable {
    /// The `--backend` name, for logs.
    var name: String { get }

    /// False when the commands do not name an output (a `--command` template without `{output}`).
    var needsOutput: Bool { get }

    /// The output to rotate when `--output` is absent.
    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice

    /// The commands that rotate `output` to `rotation`, run in order; the first that fails stops
    /// the rest (touch input is not remapped onto a display that did not turn).
    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) throws(BackendError) -> [[String]]

    /// Whether a command succeeded; the exit status unless a tool reports errors otherwise.
    func succeeded(_ result: CommandResult) -> Bool

    /// After the commands succeeded, checks that the output really turned, for a tool that
    /// reports success before it knows.
    func confirm(_ rotation: ScreenRotation, output: String, _ runner: CommandRunner) throws(BackendError)
}

extension DisplayBackend {
    var needsOutput: Bool { true }

    func succeeded(_ result: CommandResult) -> Bool { result.status == 0 }

    func confirm(_ rotation: ScreenRotation, output: String, _ runner: CommandRunner) throws(BackendError) {}

    /// Runs a query and returns its standard output, or the error with what it said.
    func query(_ command: [String], _ runner: CommandRunner) throws(BackendError) -> String {
        let result = runner.run(command)
        guard result.status == 0 else { throw BackendError(command: command, result: result) }
        return result.stdout
    }

    /// Runs a query that prints JSON and decodes it; `what` names what it should have printed.
    func query<Value: Decodable>(_ command: [String], decoding type: Value.Type, what: String, _ runner: CommandRunner) throws(BackendError) -> Value {
        let json = try query(command, runner)
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw BackendError("`\(ShellWords.quoted(command))` printed no \(what): \(error)")
        }
    }

    /// `pick` over `candidates`, or an error naming the query that listed none.
    func choose(from candidates: [OutputChoice.Candidate], source: [String]) throws(BackendError) -> OutputChoice {
        guard let choice = OutputChoice.pick(from: candidates, source: "`\(ShellWords.quoted(source))`") else {
            throw BackendError("`\(ShellWords.quoted(source))` lists no output; name one with --output")
        }
        return choice
    }
}
