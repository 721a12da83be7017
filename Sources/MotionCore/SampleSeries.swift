/// One sensor's readings from a whole recording, in time order, readable at any time by linear
/// interpolation between the two samples around it (the offline smoother reads every sensor at
/// the times of the trace's rows, whichever sensors a row holds).
struct SampleSeries: Sendable {
    let times: [Double]
    let values: [Vector3]

    /// The readings `reading` picks from `records` (rows without one are skipped).
    init(_ records: [TraceRecord], _ reading: (TraceRecord) -> Vector3?) {
        var times: [Double] = [], values: [Vector3] = []
        for record in records {
            guard let value = reading(record) else { continue }
            times.append(record.time)
            values.append(value)
        }
        self.times = times
        self.values = values
    }

    /// The samples that carry readings into the span `from...to`: those inside it, and the one
    /// just before and just after it when at most `maximumGap` away.
    func indices(covering from: Double, _ to: Double, maximumGap: Double) -> Range<Int> {
        // Binary search: the first sample not earlier than `time`.
        func firstIndex(notBefore time: Double) -> Int {
            var (low, high) = (0, times.count)
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < time { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var lower = firstIndex(notBefore: from), upper = firstIndex(notBefore: to)
        if lower > 0 && from - times[lower - 1] <= maximumGap { lower -= 1 }
        if upper < times.count && times[upper] - to <= maximumGap { upper += 1 }
        return lower..<max(lower, upper)
    }

    /// The readings at `queries` (ascending): a sample taken at that very time as it is;
    /// otherwise interpolated between the samples around it when they are at most `maximumGap`
    /// apart, the nearest sample when the time lies outside the recording by at most
    /// `maximumGap`, and nil across a longer gap or farther outside.
    func values(at queries: [Double], maximumGap: Double) -> [Vector3?] {
        var out: [Vector3?] = []
        out.reserveCapacity(queries.count)
        var next = 0 // index of the first sample later than the query
        for t in queries {
            while next < times.count && times[next] <= t { next += 1 }
            if next > 0 && times[next - 1] == t {
                out.append(values[next - 1])
            } else if next == 0 {
                out.append(!times.isEmpty && times[0] - t <= maximumGap ? values[0] : nil)
            } else if next == times.count {
                out.append(t - times[next - 1] <= maximumGap ? values[next - 1] : nil)
            } else {
                let (t0, t1) = (times[next - 1], times[next])
                out.append(t1 - t0 <= maximumGap ? values[next - 1] + (values[next] - values[next - 1]) * ((t - t0) / (t1 - t0)) : nil)
            }
        }
        return out
    }
}
