/// Converts raw IIO channel values of one sensor into a Core Motion device-frame vector.
///
/// Per axis, `iio = (raw + offset) × scale` (the kernel ABI: offset before scale), giving m/s²,
/// rad/s or Gauss; then `device = M · iio` with the mount matrix in force; then the unit change
/// to Core Motion: m/s² → G (÷ 9.80665), rad/s unchanged, Gauss → µT (× 100). A scalar sensor
/// (light, proximity) has its value in x and the identity matrix: lux stay lux, and a
/// proximity reading's scale is 1 / its near level. The acceleration comes out with the
/// gravity vector's sign (−1 g up, as Core Motion and the Linux desktop on x and y): for a chip
/// that reports the specific force the matrix is improper, its negation folded in
/// (`SensorDiscovery` in MotionIIO); every other matrix is proper.
public struct SampleConversion: Sendable, Hashable, Codable {
    public var kind: SensorKind
    /// Per-axis scale (x, y, z) from the kernel.
    public var scale: Vector3
    /// Per-axis offset (x, y, z), in raw units, added before scaling.
    public var offset: Vector3
    /// The mount matrix applied: proper, or improper for a specific-force accelerometer.
    public var mountMatrix: MountMatrix

    public init(kind: SensorKind, scale: Vector3, offset: Vector3 = .zero, mountMatrix: MountMatrix = .identity) {
        self.kind = kind
        self.scale = scale
        self.offset = offset
        self.mountMatrix = mountMatrix
    }

    /// Factor from the IIO unit to the Core Motion unit of `kind`.
    public var unitFactor: Double {
        switch kind {
        case .accelerometer, .baseAccelerometer: return 1 / PhysicalConstants.standardGravity
        case .gyroscope, .baseGyroscope: return 1
        case .magnetometer: return PhysicalConstants.microteslaPerGauss
        case .light, .proximity: return 1
        }
    }

    /// The device-frame value in Core Motion units for raw chip-frame values.
    public func convert(raw: Vector3) -> Vector3 {
        let iio = Vector3((raw.x + offset.x) * scale.x, (raw.y + offset.y) * scale.y, (raw.z + offset.z) * scale.z)
        return mountMatrix.apply(iio) * unitFactor
    }
}
