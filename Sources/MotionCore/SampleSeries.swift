/// One sensor's readings from a whole recording, in time order, readable at any time by linear
/// interpolation between the two samples around it (the offline smoother reads each sensor at
/// the gyroscope's times, shifted by the sensor's lag).
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

    /// The readings at `queries` (ascending) shifted `lag` later: interpolated between the
    /// samples around `query + lag` when they are at most `maximumGap` apart; the nearest
    /// sample held when the time lies outside the recording by at most `maximumGap`; nil
    /// otherwise (across a gap, far outside).
    func values(at queries: [Double], lag: Double, maximumGap: Double) -> [Vector3?] {
        var out: [Vector3?] = []
        out.reserveCapacity(queries.count)
        var next = 0 // index of the first sample later than the current time
        for query in queries {
            let t = query + lag
            while next < times.count && times[next] <= t { next += 1 }
            if next == 0 {
                out.append(!times.isEmpty && times[0] - t <= maximumGap ? values[0] : nil)
            } else if next == times.count {
                out.append(t - times[next - 1] <= maximumGap ? values[next - 1] : nil)
            } else {
                let (t0, t1) = (times[next - 1], times[next])
                guard t1 - t0 <= maximumGap else {
                    out.append(nil)
                    continue
                }
                let f = (t - t0) / (t1 - t0)
                out.append(values[next - 1] + (values[next] - values[next - 1]) * f)
            }
        }
        return out
    }
}
