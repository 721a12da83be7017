import Glibc

/// How `headingAccuracy` (the likely largest heading error, degrees) is worked out — Core
/// Location's field has no published definition, so this is ours:
///
/// - −1 (invalid) while the magnetometer is uncalibrated;
/// - otherwise the larger of a floor per accuracy level (low 15°, medium 5°, high 2°) and the
///   error the calibration fit leaves: a field magnitude off by `r` (relative RMS residual of
///   the fit) may turn the field by up to about `2r` radians (2σ), and only the horizontal part
///   (`cos dip` of the field) points north, so the heading may be off by `atan(2r / cos dip)`;
/// - plus 10° while a magnetic disturbance is being rejected (the heading then coasts on the
///   gyroscope and drifts with its residual bias).
public enum HeadingAccuracy {
    public static func degrees(calibration: MagneticFieldCalibrationAccuracy, relativeResidual: Double,
                               dip: Double, disturbed: Bool) -> Double {
        let floor: Double
        switch calibration {
        case .uncalibrated: return -1
        case .low: floor = 15
        case .medium: floor = 5
        case .high: floor = 2
        }
        let horizontal = max(cos(dip), 0.05)
        let fit = atan(2 * max(0, relativeResidual) / horizontal) * 180 / .pi
        return min(180, max(floor, fit) + (disturbed ? 10 : 0))
    }
}
