import Glibc

/// Gravity from the accelerometer alone, for devices without a gyroscope: a first-order
/// low-pass of the acceleration (τ 0.2 s, Android's WindowOrientationListener), and an
/// "accelerating" flag when the measured magnitude is off 1 G by more than 0.4 G (Android's
/// 4 m/s²), so the orientation detector makes no decision then. G, device frame, seconds.
public struct AccelerationGravity: Sendable, Hashable, Codable {
    /// Largest deviation of |a| from 1 G still taken as "not accelerating", G.
    public var accelerationTolerance = 0.4
    /// The low-pass: τ 0.2 s, restarted after a gap over 1 s.
    public var filter = FirstOrderLowPass<Vector3>(tau: 0.2, maximumGap: 1)

    public private(set) var accelerating = false

    public init() {}

    /// The low-passed acceleration, G; nil before the first sample.
    public var gravity: Vector3? { filter.value }

    /// Feeds one accelerometer sample; non-finite or zero samples are ignored.
    public mutating func update(_ acceleration: Vector3, at time: Double) {
        guard acceleration.isFinite, time.isFinite, acceleration.norm > 0.1 else { return }
        accelerating = abs(acceleration.norm - 1) > accelerationTolerance
        filter.update(acceleration, at: time)
    }
}
