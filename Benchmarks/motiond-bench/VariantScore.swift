/// One run's 9D total RMSE over the first 30 s of motion and after, its largest heading error in
/// those first 30 s (degrees), and the seconds of motion until the calibration accuracy was high.
struct VariantScore {
    var first: Double
    var after: Double
    var largestHeadingFirst: Double
    var highAfter: Double?
}
