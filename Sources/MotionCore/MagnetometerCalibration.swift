/// A magnetometer calibration: the hard-iron offset and the soft-iron correction that turn a raw
/// device-frame reading (µT) into the field that remains when the device's own magnetism is
/// removed, `softIron * (raw − offset)`. Calibrated readings lie on a sphere of radius
/// `fieldStrength` centred at the origin.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// Hard iron: the constant field of the device's own magnets, device frame, µT.
    public var offset: Vector3
    /// Soft iron: the symmetric, unit-determinant correction applied after subtracting `offset`,
    /// which makes the ellipsoid of raw readings round; identity when only the hard iron is known.
    public var softIron: Matrix3
    /// The magnitude calibrated readings should have, µT (0 when unknown).
    public var fieldStrength: Double

    public init(offset: Vector3, softIron: Matrix3, fieldStrength: Double) {
        self.offset = offset
        self.softIron = softIron
        self.fieldStrength = fieldStrength
    }

    /// No correction: `apply` returns the raw reading.
    public static let identity = MagnetometerCalibration(offset: .zero, softIron: .identity, fieldStrength: 0)

    /// Whether it leaves readings as they come (whatever field strength it expects).
    public var isIdentity: Bool { offset == .zero && softIron == .identity }

    /// The calibrated field for a raw reading, µT: `softIron * (raw − offset)`.
    public func apply(_ raw: Vector3) -> Vector3 {
        softIron * (raw - offset)
    }
}
