/// A compass reading, like Core Location's `CLHeading`.
///
/// Headings are degrees in [0, 360) clockwise from north of the edge chosen by
/// ``HeadingOrientation``, tilt-compensated (taken from the fused 9D attitude, not from the
/// raw field). `trueHeading` is negative (−1) when no declination is known (no configured
/// location or declination), as Core Location reports it without location updates.
/// `headingAccuracy` is the likely largest error in degrees, negative (−1) when the heading is
/// not valid (magnetometer uncalibrated). `field` is the calibrated magnetic field in µT,
/// device frame (`CLHeading.x/y/z`); `timestamp` seconds since boot.
public struct Heading: Sendable, Hashable, Codable {
    public var timestamp: Double
    public var magneticHeading: Double
    public var trueHeading: Double
    public var headingAccuracy: Double
    public var field: MagneticField

    public init(timestamp: Double, magneticHeading: Double, trueHeading: Double, headingAccuracy: Double,
                field: MagneticField) {
        self.timestamp = timestamp
        self.magneticHeading = magneticHeading
        self.trueHeading = trueHeading
        self.headingAccuracy = headingAccuracy
        self.field = field
    }
}
