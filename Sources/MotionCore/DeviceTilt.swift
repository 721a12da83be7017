import Glibc

/// How far the screen faces up or down, iio-sensor-proxy's `AccelerometerTilt` (3.6+) with its
/// thresholds: tilt = the screen normal's elevation in whole degrees, +90° lying face up, −90°
/// face down; |tilt| ≤ 20° `vertical`, up to 70° `tiltedUp`/`tiltedDown`, beyond
/// `faceUp`/`faceDown`. Like iio-sensor-proxy's, a pure function of gravity's direction without
/// hysteresis (G, device frame, gravity sign: face up is g.z < 0, as ``DeviceOrientation/faceUp``).
/// Wire names: the case names; iio-sensor-proxy's strings via ``iioSensorProxyName``.
public enum DeviceTilt: String, Sendable, Hashable, Codable, CaseIterable {
    case vertical, tiltedUp, tiltedDown, faceUp, faceDown

    /// The tilt for a gravity vector; nil when it is zero or not finite.
    public init?(gravity g: Vector3) {
        guard g.isFinite, g.norm > 0 else { return nil }
        // Whole degrees, as iio-sensor-proxy rounds them: 20.4° is still vertical.
        let tilt = (atan2(-g.z, (g.x * g.x + g.y * g.y).squareRoot()) * 180 / .pi).rounded()
        switch abs(tilt) {
        case ...20: self = .vertical
        case ..<70: self = tilt > 0 ? .tiltedUp : .tiltedDown
        default: self = tilt > 0 ? .faceUp : .faceDown
        }
    }

    /// iio-sensor-proxy's string for the same reading (`vertical`, `tilted-up`, `tilted-down`,
    /// `face-up`, `face-down`). Its tilt takes the kernel's z through the mount matrix, > 0 as
    /// facing up (the frame its tests and clients use: x and y with the gravity sign, z with the
    /// accelerometer's own, i.e. Android's frame turned 180° about z). motiond has the gravity
    /// sign on all three axes (Core Motion's): on a chip that reports the specific force
    /// (`specificForce`, every IIO driver but a HID hub's) it negated the kernel's z, so both say
    /// the same; a HID hub reports the gravity vector, which iio-sensor-proxy reads upside down:
    /// there up and down swap, and the D-Bus face shows what iio-sensor-proxy shows.
    public func iioSensorProxyName(specificForce: Bool) -> String {
        switch (self, specificForce) {
        case (.vertical, _): return "vertical"
        case (.tiltedUp, true), (.tiltedDown, false): return "tilted-up"
        case (.tiltedDown, true), (.tiltedUp, false): return "tilted-down"
        case (.faceUp, true), (.faceDown, false): return "face-up"
        case (.faceDown, true), (.faceUp, false): return "face-down"
        }
    }
}
