/// A magnetic field with the device's own (hard- and soft-iron) distortion removed, and how
/// well that is known, like `CMCalibratedMagneticField`.
public struct CalibratedMagneticField: Sendable, Hashable, Codable {
    public var field: MagneticField
    public var accuracy: MagneticFieldCalibrationAccuracy

    public init(field: MagneticField, accuracy: MagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }
}
