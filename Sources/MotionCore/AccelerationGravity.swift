import Foundation

/// Gravity from the accelerometer alone, for devices without a gyroscope: a first-order
/// low-pass of the acceleration (τ 0.2 s, Android's WindowOrientationListener), and an
/// "accelerating" flag when the measured magnitude is off 1 G by more than 0.4 G (Android's
/// 4 m/s²), so the orientation detector makes no decision then. G, device frame, seconds.
public struct AccelerationGravity: Sendable, Hashable, Codable {
    /// Low-pass time constant, s.
    public var tau = 0.2
    /// Largest deviation of |a| from 1 G still taken as "not accelerating", G.
    public var accelerationTolerance = 0.4
    /// A gap longer than this restarts the filter on the new sample, s.
    public var maximumGap = 1.0

    public private(set) var gravity: Vector3?
    public private(set) var accelerating = false
    private var last: Double?

    public init() {}

    /// Feeds one accelerometer sample; non-finite or zero samples are ignored.
    public mutating func update(_ acceleration: Vector3, at time: Double) {
        guard acceleration.isFinite, time.isFinite, acceleration.norm > 0.1 else { return }
        accelerating = abs(acceleration.norm - 1) > accelerationTolerance
        defer { last = time }
        guard let gravity, let last, time - last <= maximumGap else {
            gravity = acceleration
            return
        }
        guard time > last else { return } // a repeated or earlier time
        self.gravity = gravity + (acceleration - gravity) * (1 - exp(-(time - last) / tau))
    }
}
