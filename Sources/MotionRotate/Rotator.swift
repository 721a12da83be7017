import MotionToolSupport

/// Turns the screen through a backend: finds the output once (the choice is logged), then runs
/// the backend's commands in order, or prints them with `--dry-run`. A failure is logged with
/// what the command said and reported to the caller, which carries on; an output that could not
/// be found is looked for again next time.
struct Rotator {
    let backend: any DisplayBackend
    let runner: CommandRunner
    let dryRun: Bool
    /// `--output`, or the backend's choice once made.
    private var output: String?

    init(backend: any DisplayBackend, output: String?, dryRun: Bool, runner: CommandRunner = CommandRunner()) {
        self.backend = backend
        self.output = output
        self.dryRun = dryRun
        self.runner = runner
        if let output { Log.info("rotating output \(output) (--output)") }
    }

    /// Rotates to `rotation`; false when a query or command failed (already logged).
    mutating func rotate(to rotation: ScreenRotation) -> Bool {
        do throws(BackendError) {
            let target = try resolvedOutput()
            for command in try backend.commands(for: rotation, output: target, runner) {
                if dryRun {
                    Console.line(ShellWords.quoted(command))
                    continue
                }
                let result = runner.run(command)
                guard backend.succeeded(result) else { throw BackendError(command: command, result: result) }
            }
            if !dryRun { try backend.confirm(rotation, output: target, runner) }
            return true
        } catch {
            Log.warning("could not rotate to \(rotation.orientation.rawValue): \(error)")
            return false
        }
    }

    private mutating func resolvedOutput() throws(BackendError) -> String {
        guard backend.needsOutput else { return "" }
        if let output { return output }
        let choice = try backend.defaultOutput(runner)
        Log.info("rotating output \(choice.name): \(choice.reason); --output chooses another")
        output = choice.name
        return choice.name
    }
}
