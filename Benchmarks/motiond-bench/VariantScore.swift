/// One run's 9D total RMSE over the first 30 s of motion and after, its largest heading error in
/// those first 30 s and how far that error swung there while the calibration was reported
/// uncalibrated (the range of the signed heading error, degrees), and the seconds of motion until
/// the calibration accuracy was high.
struct VariantScore {
    var first: Double
    var after: Double
    var largestHeadingFirst: Double
    var headingSwingFirst: Double
    var highAfter: Double?
}
