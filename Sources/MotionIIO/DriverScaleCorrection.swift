import MotionCore

/// A driver whose reported scale is off the IIO ABI's unit by a known factor, and the factor
/// that puts it right: the kernel's value × `factor` is the unit per count.
///
/// The hmc5843 family (`hmc5843`, `hmc5883`, `hmc5883l`, `hmc5983`, Linux `hmc5843_core`)
/// reports `in_magn_scale` from a table of 10⁷/gain nano: an HMC5883L at its default gain of
/// 1090 counts per Gauss says 0.000009174 where the ABI's Gauss per count is 0.000917431. Read as
/// it comes, the Earth's field would be a hundredth of itself.
struct DriverScaleCorrection: Sendable, Equatable {
    let factor: Double
    /// Why, for `--list-sensors`.
    let reason: String

    init?(driver: String?, kind: SensorKind) {
        guard kind == .magnetometer, let driver, ["hmc5843", "hmc5883", "hmc5883l", "hmc5983"].contains(driver) else { return nil }
        factor = 100
        reason = "the hmc5843 driver's scale is a hundredth of Gauss per count (10^7/gain nano)"
    }
}
