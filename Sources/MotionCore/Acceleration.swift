/// Acceleration in G (1 G = 9.80665 m/s²) with the gravity-vector sign, like `CMAcceleration`:
/// a device lying face up at rest reads (0, 0, −1), held upright in portrait (0, −1, 0).
public struct Acceleration: ThreeAxisValue {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}
