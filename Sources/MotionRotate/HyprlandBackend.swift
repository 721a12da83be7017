import MotionCore
import MotionToolSupport

/// Hyprland: `hyprctl keyword monitor NAME,WxH@HZ,XxY,SCALE,transform,N`, N the `wl_output`
/// transform's enum value (degrees / 90, see ``ScreenRotation``). The whole monitor rule is
/// given, its mode, position and scale read back from `hyprctl -j monitors`: the short
/// `NAME,transform,N` only edits a rule already named after that monitor and does nothing under
/// a catch-all rule. Hyprland turns touch input with the monitor (`input:touchdevice:transform`
/// unset).
struct HyprlandBackend: DisplayBackend {
    var name: String { "hyprland" }

    private static let monitorsQuery = ["hyprctl", "-j", "monitors"]

    /// The part of `hyprctl -j monitors` this backend reads (mode size before the transform).
    private struct Monitor: Decodable {
        var name: String
        var width: Int
        var height: Int
        var refreshRate: Double
        var x: Int
        var y: Int
        var scale: Double
        var disabled: Bool?
    }

    private func monitors(_ runner: CommandRunner) throws(BackendError) -> [Monitor] {
        try query(Self.monitorsQuery, decoding: [Monitor].self, what: "monitor list", runner)
    }

    func defaultOutput(_ runner: CommandRunner) throws(BackendError) -> OutputChoice {
        try choose(from: try monitors(runner).map { .init(name: $0.name, active: !($0.disabled ?? false)) }, source: Self.monitorsQuery)
    }

    func commands(for rotation: ScreenRotation, output: String, _ runner: CommandRunner) throws(BackendError) -> [[String]] {
        guard let monitor = try monitors(runner).first(where: { $0.name == output }) else {
            throw BackendError("`\(ShellWords.quoted(Self.monitorsQuery))` lists no monitor \(output)")
        }
        let mode = "\(monitor.width)x\(monitor.height)@\(DecimalText.fixed(monitor.refreshRate, decimals: 3))"
        let rule = [output, mode, "\(monitor.x)x\(monitor.y)", "\(monitor.scale)", "transform", "\(rotation.degrees / 90)"]
        return [["hyprctl", "keyword", "monitor", rule.joined(separator: ",")]]
    }

    /// hyprctl prints `ok`, or the error, with exit status 0 either way.
    func succeeded(_ result: CommandResult) -> Bool {
        result.status == 0 && result.stdout.trimmingWhitespace() == "ok"
    }
}
