import MotionCore
import MotionProtocol

/// What a rate-capped client (``AccessGrant/capsRate``) gets when it pulls: a value at least
/// the cap's interval newer (by sample time) than the one it pulled last for the same request,
/// else that one again — pulling faster gains nothing over subscribing at the capped rate. Pure;
/// lives on the pipeline queue.
struct PullThrottle: Sendable {
    /// What a `get` asked for.
    struct Key: Hashable, Sendable {
        var stream: StreamName
        var frame: AttitudeReferenceFrame?
        var orientation: HeadingOrientation?
    }

    private var pulled: [ClientID: [Key: (timestamp: Double, value: ServerMessage)]] = [:]

    /// Sample times closer than this count as equal (intervals are not exact in binary).
    private static let tolerance = 1e-6

    /// What `client`, capped to one value per `minimumInterval` seconds, receives for `key`
    /// when the latest value is `value`. Values without a timestamp pass unchanged.
    mutating func throttled(_ value: ServerMessage, _ key: Key, for client: ClientID, minimumInterval: Double) -> ServerMessage {
        guard let t = value.timestamp else { return value }
        if let last = pulled[client]?[key], t >= last.timestamp, t - last.timestamp < minimumInterval - Self.tolerance {
            return last.value
        }
        pulled[client, default: [:]][key] = (t, value)
        return value
    }

    /// Forgets a client that went away.
    mutating func forget(_ client: ClientID) {
        pulled[client] = nil
    }
}
