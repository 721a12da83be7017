/// Raw gyroscope reading, like `CMGyroData`: rad/s, **biased** (the zero-rate offset is still
/// in it; ``DeviceMotion/rotationRate`` has it removed).
public struct GyroData: Sendable, Hashable, Codable {
    public var timestamp: Double
    public var rotationRate: RotationRate

    public init(timestamp: Double, rotationRate: RotationRate) {
        self.timestamp = timestamp
        self.rotationRate = rotationRate
    }
}
