import MotionToolSupport

/// sway: `swaymsg output OUTPUT transform normal|90|180|270` (the `wl_output` transform, see
/// ``ScreenRotation``), then `swaymsg input DEVICE map_to_output OUTPUT` for the touch screen and
/// pen: wlroots turns the events of an input mapped to an output with that output's transform,
/// so the mapping is all touch needs. `swaymsg` finds sway through `SWAYSOCK`.
struct SwayBackend: DisplayBackend {
    /// sway input identifiers to map (`swaymsg -t get_inputs`); by default every touch screen
    /// and pen (`type:touch`, `type:tablet_tool`).
    var inputs: [String]

    var name: String { "sway" }

    private static let outputsQuery = ["swaymsg", "-r", "-t", "get_outputs"]

    /// The part of `swaymsg -t get_outputs` this backend reads.
    private struct Output: Decodable {
        var name: String
        var make: String?
        var model: String?
        var serial: String?
        var active: Bool?
        var transform: String?

        /// sway's other name for an output: "make model serial".
        var identifier: String { [make, model, serial].map { $0 ?? "" }.joined(separator: " ") }
    }

    private func outputs(_ runner: CommandRunner) throws(BackendError) -> [Output] {
        try query(Self.outputsQuery, decoding: [Output].self, what: "output list", runner)
    }

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        try choose(from: try outputs(runner).map { .init(name: $0.name, active: $0.active ?? false) }, source: Self.outputsQuery)
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) -> [[String]] {
        // swaymsg joins its arguments into one sway command, which splits at spaces again.
        let target = output.contains(where: \.isWhitespace) ? "\"\(output)\"" : output
        return [["swaymsg", "output", target, "transform", rotation.waylandName]]
            + inputs.map { ["swaymsg", "input", $0, "map_to_output", target] }
    }

    /// swaymsg reports success once sway has taken the command, also for an output that does
    /// not exist or then fails to commit ("Failed to commit output" in sway's log): the
    /// transform is read back.
    func confirm(_ rotation: ScreenRotation, output: String, _ runner: CommandRunner) throws(BackendError) {
        guard let shown = try outputs(runner).first(where: { $0.name == output || $0.identifier == output }) else {
            throw BackendError("sway has no output \(output) (`\(ShellWords.quoted(Self.outputsQuery))`)")
        }
        guard shown.transform == rotation.waylandName else {
            throw BackendError("sway took the command, but \(output) still has transform \(shown.transform ?? "none") (sway's log says why)")
        }
    }
}
