/// Latencies (seconds) summarized the way the benchmarks report them: nearest-rank percentiles
/// and the maximum, in milliseconds.
struct LatencySummary {
    private let sorted: [Double]

    init(_ latencies: [Double]) {
        sorted = latencies.sorted()
    }

    var count: Int { sorted.count }

    /// The `p` quantile (0–1) in milliseconds, NaN without samples.
    func milliseconds(at p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)] * 1000
    }

    var maximumMilliseconds: Double { (sorted.last ?? .nan) * 1000 }
}
