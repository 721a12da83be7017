import MotionToolSupport
/// A command of the user's (`--command TEMPLATE`) for anything else: GNOME extensions, scripts,
/// other compositors. The template is split into arguments by ``CommandTemplate``, never given
/// to a shell (run `sh -c '…' sh {rotation}` explicitly for one).
struct CommandBackend: DisplayBackend {
    var template: CommandTemplate

    var name: String { "command" }

    var needsOutput: Bool { template.usesOutput }

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        throw BackendError("the command template uses {output}: name the output with --output")
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) -> [[String]] {
        [template.command(for: rotation, output: output)]
    }
}
