import MotionCore
import MotionToolSupport

/// Any wlroots compositor with the output-management protocol (labwc, river, wayfire, …):
/// `wlr-randr --output OUTPUT --transform normal|90|180|270` (the `wl_output` transform, see
/// ``ScreenRotation``). Touch input follows when the compositor maps it to the output.
struct WlrRandrBackend: DisplayBackend {
    var name: String { "wlr-randr" }

    private static let outputsQuery = ["wlr-randr"]

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        try choose(from: Self.outputs(in: try query(Self.outputsQuery, runner)), source: Self.outputsQuery)
    }

    /// wlr-randr's listing: each output starts a line (`NAME "description"`), its details are
    /// indented below, among them `Enabled: yes|no`.
    static func outputs(in listing: String) -> [OutputChoice.Candidate] {
        var outputs: [OutputChoice.Candidate] = []
        for line in listing.split(separator: "\n") {
            if let first = line.first, !first.isWhitespace, let name = line.split(separator: " ").first {
                outputs.append(.init(name: String(name), active: false))
            } else if line.trimmingWhitespace(newlines: false) == "Enabled: yes", !outputs.isEmpty {
                outputs[outputs.count - 1].active = true
            }
        }
        return outputs
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) -> [[String]] {
        [["wlr-randr", "--output", output, "--transform", rotation.waylandName]]
    }
}
