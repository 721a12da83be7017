import MotionCore
import MotionIIO

extension SourceRequest {
    /// Each sensor read and how often, for the log and `systemctl status`:
    /// `accelerometer every 20 ms (at rest: read every 350 ms)`,
    /// `gyroscope every 10 ms (batched: may come 1000 ms late)`, `light every 800 ms`.
    var readings: [String] {
        SensorKind.allCases.compactMap { kind in
            if !kind.isMotion, let interval = wakeInterval(kind) {
                return "\(kind) every \(SysfsNumber.format(interval * 1000)) ms"
            }
            return periods[kind].map { period in
                "\(kind) every \(SysfsNumber.format(period * 1000)) ms"
                    + (wakeIntervals[kind].map { " (at rest: read every \(SysfsNumber.format($0 * 1000)) ms)" } ?? "")
                    + (latencies[kind].map { " (batched: may come \(SysfsNumber.format($0 * 1000)) ms late)" } ?? "")
            }
        }
    }

    /// `: accelerometer every 20 ms, …`, or `: all idle (nothing subscribed)`: what follows
    /// `sensors` or `motiond reading URI` in the log.
    var readingSummary: String {
        periods.isEmpty ? ": all idle (nothing subscribed)" : ": " + readings.joined(separator: ", ")
    }
}
