/// Raw magnetometer reading, like `CMMagnetometerData`: µT, **uncalibrated** (hard- and
/// soft-iron distortion and nearby fields included).
public struct MagnetometerData: Sendable, Hashable, Codable {
    public var timestamp: Double
    public var magneticField: MagneticField

    public init(timestamp: Double, magneticField: MagneticField) {
        self.timestamp = timestamp
        self.magneticField = magneticField
    }
}
