/// The angle between a convertible's display and its base, from their two accelerometers.
///
/// `degrees` runs from 0 (lid closed) through 180 (display and base flat in one plane) to 360
/// (display folded back onto the base: a tablet), the convention of Android's `HINGE_ANGLE`
/// sensor and ChromeOS's lid angle. `timestamp` is seconds since boot (CLOCK_BOOTTIME) of the
/// accelerometer sample that produced it.
public struct HingeAngle: Sendable, Hashable, Codable {
    public var degrees: Double
    public var accuracy: HingeAngleAccuracy
    public var timestamp: Double

    public init(degrees: Double, accuracy: HingeAngleAccuracy, timestamp: Double) {
        self.degrees = degrees
        self.accuracy = accuracy
        self.timestamp = timestamp
    }
}
