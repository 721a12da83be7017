import Glibc

/// How far the screen faces up or down, iio-sensor-proxy's `AccelerometerTilt` (3.6+) with its
/// thresholds: tilt = the screen normal's elevation, +90° lying face up, −90° face down;
/// |tilt| ≤ 20° `vertical`, up to 70° `tiltedUp`/`tiltedDown`, beyond `faceUp`/`faceDown`.
/// Like iio-sensor-proxy's, a pure function of gravity without hysteresis (G, device frame,
/// gravity sign). Wire names: iio-sensor-proxy's strings via ``iioSensorProxyName``.
public enum DeviceTilt: String, Sendable, Hashable, Codable, CaseIterable {
    case vertical, tiltedUp, tiltedDown, faceUp, faceDown

    /// The tilt for a gravity vector; nil when it is zero or not finite.
    public init?(gravity g: Vector3) {
        guard g.isFinite, g.norm > 0 else { return nil }
        let tilt = atan2(-g.z, (g.x * g.x + g.y * g.y).squareRoot()) * 180 / .pi
        switch abs(tilt) {
        case ...20: self = .vertical
        case ..<70: self = tilt > 0 ? .tiltedUp : .tiltedDown
        default: self = tilt > 0 ? .faceUp : .faceDown
        }
    }

    /// iio-sensor-proxy's string (`vertical`, `tilted-up`, `tilted-down`, `face-up`, `face-down`).
    public var iioSensorProxyName: String {
        switch self {
        case .vertical: return "vertical"
        case .tiltedUp: return "tilted-up"
        case .tiltedDown: return "tilted-down"
        case .faceUp: return "face-up"
        case .faceDown: return "face-down"
        }
    }
}
