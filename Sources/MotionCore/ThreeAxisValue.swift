/// A Core Motion three-axis value (``Acceleration``, ``RotationRate``, ``MagneticField``):
/// x, y, z along the device axes (+x right edge, +y top edge, +z out of the screen).
public protocol ThreeAxisValue: Sendable, Hashable, Codable {
    var x: Double { get set }
    var y: Double { get set }
    var z: Double { get set }
    init(x: Double, y: Double, z: Double)
}

extension ThreeAxisValue {
    public init(_ vector: Vector3) {
        self.init(x: vector.x, y: vector.y, z: vector.z)
    }

    /// The value as a plain vector.
    public var vector: Vector3 { Vector3(x, y, z) }
}
