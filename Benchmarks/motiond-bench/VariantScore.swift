/// One run's 9D total RMSE over the first 30 s of motion and after, its largest heading error in
/// those first 30 s and how far that error swung there while the calibration was reported
/// uncalibrated (the range of the signed heading error, degrees), and the seconds of motion until
/// the calibration accuracy was high, and until its hard iron was learned.
struct VariantScore {
    var first: Double
    var after: Double
    var largestHeadingFirst: Double
    var headingSwingFirst: Double
    var highAfter: Double?
    /// Seconds of motion from which the calibration's offset stays within
    /// ``MotionPhases/offsetTolerance`` of the hard iron to learn until the recording ends (nil:
    /// not within it at the end).
    var offsetLearnedAfter: Double?
    /// Each time the calibration's offset moved more than ``MotionPhases/offsetTolerance`` from
    /// where it last stood: seconds of motion and the new offset's length, µT.
    var offsetSteps: [(seconds: Double, length: Double)]
}
