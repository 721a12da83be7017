import MotionCore

/// Why a source could not be made or started.
public enum SourceError: Error, Sendable, CustomStringConvertible {
    case invalidURI(String)
    case invalidPeriod(kind: SensorKind, period: Double)
    case context(IIOError)
    case trace(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURI(let uri):
            return "unsupported source '\(uri)': expected local:, ip:HOST[:PORT], sim: or replay:FILE.csv"
        case .invalidPeriod(let kind, let period):
            return "\(kind) period \(period) s is outside the supported 0.01–0.1 s (10–100 ms)"
        case .context(let error):
            return error.description
        case .trace(let path, let reason):
            return "cannot replay \(path): \(reason)"
        }
    }
}
