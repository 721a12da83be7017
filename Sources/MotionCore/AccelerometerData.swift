/// Raw accelerometer reading, like `CMAccelerometerData`: seconds since boot and the measured
/// acceleration (gravity plus user acceleration) in G.
public struct AccelerometerData: Sendable, Hashable, Codable {
    public var timestamp: Double
    public var acceleration: Acceleration

    public init(timestamp: Double, acceleration: Acceleration) {
        self.timestamp = timestamp
        self.acceleration = acceleration
    }
}
