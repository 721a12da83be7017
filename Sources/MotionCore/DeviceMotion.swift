/// The fused motion of the device at one instant, like `CMDeviceMotion`.
///
/// `gravity` is a unit vector in G pointing down, in device coordinates; `userAcceleration` is
/// what remains of the measured acceleration, so `gravity + userAcceleration` is the
/// accelerometer reading. `rotationRate` has the gyroscope bias removed. `heading` is degrees
/// clockwise from north of the device's top edge (see ``Attitude/heading``) in the north
/// frames, and −1 in the arbitrary frames, as Core Motion reports it.
public struct DeviceMotion: Sendable, Hashable, Codable {
    public var timestamp: Double
    public var attitude: Attitude
    public var rotationRate: RotationRate
    public var gravity: Acceleration
    public var userAcceleration: Acceleration
    public var magneticField: CalibratedMagneticField
    public var heading: Double
    /// The single frame `attitude` (and `heading`) is given in.
    public var referenceFrame: AttitudeReferenceFrame

    public init(timestamp: Double, attitude: Attitude, rotationRate: RotationRate, gravity: Acceleration,
                userAcceleration: Acceleration, magneticField: CalibratedMagneticField, heading: Double,
                referenceFrame: AttitudeReferenceFrame) {
        self.timestamp = timestamp
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.magneticField = magneticField
        self.heading = heading
        self.referenceFrame = referenceFrame
    }

    /// Builds device motion from an estimated attitude and the measured acceleration: gravity
    /// from the attitude, user acceleration as the rest, heading from the attitude in a north
    /// frame (else −1).
    public init(timestamp: Double, attitude: Attitude, rotationRate: RotationRate, measuredAcceleration: Acceleration,
                magneticField: CalibratedMagneticField, referenceFrame: AttitudeReferenceFrame) {
        let gravity = attitude.gravity
        self.init(timestamp: timestamp, attitude: attitude, rotationRate: rotationRate, gravity: gravity,
                  userAcceleration: Acceleration(measuredAcceleration.vector - gravity.vector),
                  magneticField: magneticField, heading: referenceFrame.isNorthReferenced ? attitude.heading : -1,
                  referenceFrame: referenceFrame)
    }
}
