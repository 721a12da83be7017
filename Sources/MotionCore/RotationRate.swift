/// Angular velocity in rad/s about the device axes, like `CMRotationRate`: positive is
/// counter-clockwise seen from the tip of the axis (right-hand rule).
public struct RotationRate: ThreeAxisValue {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}
