/// Magnetic flux density in µT along the device axes, like `CMMagneticField`.
public struct MagneticField: ThreeAxisValue {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}
