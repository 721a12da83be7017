import MotionToolSupport
/// X11: `xrandr --output OUTPUT --rotate normal|left|inverted|right`, then for each touch device
/// `xinput set-prop DEVICE "Coordinate Transformation Matrix" …` so touches land where the
/// turned picture is.
///
/// The matrix maps a touch at (x, y), both 0…1 across the panel as it is built, to the screen
/// after the rotation, row-major 3 × 3 on (x, y, 1):
///
/// | xrandr | matrix | e.g. the panel's top-left corner lands |
/// |---|---|---|
/// | `normal` | `1 0 0  0 1 0  0 0 1` | top-left |
/// | `left` | `0 -1 1  1 0 0  0 0 1` | top-right (the left edge is up) |
/// | `inverted` | `-1 0 1  0 -1 1  0 0 1` | bottom-right |
/// | `right` | `0 1 0  -1 0 1  0 0 1` | bottom-left (the right edge is up) |
struct X11Backend: DisplayBackend {
    /// xinput device names (or ids, `xinput list`) to turn with the screen.
    var touchDevices: [String]

    var name: String { "x11" }

    private static let outputsQuery = ["xrandr", "--query"]

    static func matrix(_ rotation: ScreenRotation) -> [Int] {
        switch rotation.xrandrName {
        case "left": return [0, -1, 1, 1, 0, 0, 0, 0, 1]
        case "inverted": return [-1, 0, 1, 0, -1, 1, 0, 0, 1]
        case "right": return [0, 1, 0, -1, 0, 1, 0, 0, 1]
        default: return [1, 0, 0, 0, 1, 0, 0, 0, 1]
        }
    }

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        try choose(from: Self.outputs(in: try query(Self.outputsQuery, runner)), source: Self.outputsQuery)
    }

    /// The connected outputs of `xrandr --query` (`NAME connected [primary] [WxH+X+Y] …`); one
    /// with a geometry shows a picture.
    static func outputs(in listing: String) -> [OutputChoice.Candidate] {
        listing.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count >= 2, words[1] == "connected" else { return nil }
            let geometry = words.dropFirst(2).first { $0 != "primary" }
            return .init(name: String(words[0]), active: geometry.map { $0.contains("+") && $0.contains("x") } ?? false)
        }
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) -> [[String]] {
        let matrix = Self.matrix(rotation).map(String.init)
        return [["xrandr", "--output", output, "--rotate", rotation.xrandrName]]
            + touchDevices.map { ["xinput", "set-prop", $0, "Coordinate Transformation Matrix"] + matrix }
    }
}
