import MotionToolSupport

/// KDE Plasma (Wayland or X11): `kscreen-doctor output.OUTPUT.rotation.none|left|inverted|right`.
/// KScreen's rotations are RandR's (`left` turns the picture a quarter counter-clockwise, see
/// ``ScreenRotation``), with `none` for `normal`. KWin turns touch input with its output.
struct KDEBackend: DisplayBackend {
    var name: String { "kde" }

    private static let outputsQuery = ["kscreen-doctor", "-j"]

    /// The part of `kscreen-doctor -j` this backend reads.
    private struct Configuration: Decodable {
        struct Output: Decodable {
            var name: String
            var enabled: Bool?
            var connected: Bool?
        }
        var outputs: [Output]
    }

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        let configuration = try query(Self.outputsQuery, decoding: Configuration.self, what: "output list", runner)
        let candidates = configuration.outputs.map { OutputChoice.Candidate(name: $0.name, active: ($0.enabled ?? false) && ($0.connected ?? true)) }
        return try choose(from: candidates, source: Self.outputsQuery)
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) -> [[String]] {
        let name = rotation.xrandrName == "normal" ? "none" : rotation.xrandrName
        return [["kscreen-doctor", "output.\(output).rotation.\(name)"]]
    }
}
