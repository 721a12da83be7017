import MotionCore
import MotionProtocol

/// Why a handler got no data: what went wrong, in a sentence naming the thing. Handlers
/// receive these with a nil value, as Core Motion handlers receive an `NSError`.
public enum MotionClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// motiond cannot be reached (not running, socket missing, connection lost). The manager
    /// keeps trying and restores every subscription when it is back.
    case daemonUnreachable(String)
    /// A sensor the stream needs is not available (absent, unplugged, failing).
    case sensorUnavailable(SensorKind, String)
    /// motiond's access policy does not give this process the stream (or any stream).
    case accessDenied(String)
    /// motiond speaks another protocol version.
    case protocolMismatch(String)
    /// The reference frame cannot be served (no magnetometer, no declination for true north).
    case frameUnavailable(String)
    /// Any other error motiond answered with (its code and message).
    case daemon(ErrorCode, String)

    /// The client-side error for an error reply.
    init(_ error: ProtocolError) {
        switch error.code {
        case .accessDenied: self = .accessDenied(error.message)
        case .frameUnavailable: self = .frameUnavailable(error.message)
        default: self = .daemon(error.code, error.message)
        }
    }

    /// Whether waiting cannot help: the same request would fail again.
    var isPermanent: Bool {
        switch self {
        case .accessDenied, .frameUnavailable, .daemon, .protocolMismatch: return true
        case .daemonUnreachable, .sensorUnavailable: return false
        }
    }

    public var description: String {
        switch self {
        case .daemonUnreachable(let why): return "motiond is unreachable: \(why)"
        case .sensorUnavailable(let kind, let why): return "\(kind) unavailable: \(why)"
        case .accessDenied(let why): return "access denied: \(why)"
        case .protocolMismatch(let why): return "protocol mismatch: \(why)"
        case .frameUnavailable(let why): return "reference frame unavailable: \(why)"
        case .daemon(let code, let message): return "\(code.rawValue): \(message)"
        }
    }
}
