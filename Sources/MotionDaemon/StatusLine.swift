import MotionCore
import MotionIIO

/// The line `systemctl status` shows (sd_notify `STATUS=`): the clients, the sensors being
/// read and how often, and the sensors missing — `2 clients; accelerometer every 20 ms; no
/// magnetometer`. Sent when it changes, not on a timer. Pure.
struct StatusLine: Sendable {
    /// The text last sent (nil: none yet).
    private var shown: String?

    /// The line for `clients` connected clients, the source reading `request`, and `missing`
    /// sensors.
    static func text(clients: Int, reading request: SourceRequest, missing: [SensorKind]) -> String {
        let readings = request.readings
        let clientText = clients == 1 ? "1 client" : "\(clients) clients"
        let sensorText = readings.isEmpty ? "sensors idle" : readings.joined(separator: ", ")
        return "\(clientText); \(sensorText)" + (missing.isEmpty ? "" : "; no \(missing.map(\.rawValue).joined(separator: ", "))")
    }

    /// `text` if it differs from the line sent last (it then counts as sent), else nil.
    mutating func update(_ text: String) -> String? {
        guard text != shown else { return nil }
        shown = text
        return text
    }
}
