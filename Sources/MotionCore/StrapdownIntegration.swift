/// The gyroscope integrated (strapdown) at its own sample times, from the identity, and read at
/// any time: the offline smoother's almost-inertial frame.
///
/// As online, a sample's rate holds over the step that ends with it. Between two samples the
/// attitude is the earlier one turned by the later sample's rate for the time since — exactly
/// what integration would give with a sample at that time, so the result does not depend on
/// which rows of a trace hold a gyroscope reading. Before the first sample its rate is taken
/// back, after the last the last rate carried on.
struct StrapdownIntegration: Sendable {
    private let times: [Double]
    private let rates: [Vector3]
    private let attitudes: [Quaternion]

    /// Integrates `rates` (rad/s, bias removed) sampled at `times` (ascending, not empty).
    init(times: [Double], rates: [Vector3]) {
        precondition(!times.isEmpty && times.count == rates.count, "one rate per time")
        var q = Quaternion.identity
        var attitudes = [q]
        attitudes.reserveCapacity(times.count)
        for i in times.indices.dropFirst() {
            q = Self.turned(q, by: rates[i], for: times[i] - times[i - 1])
            attitudes.append(q)
        }
        self.times = times
        self.rates = rates
        self.attitudes = attitudes
    }

    /// The attitude (device → almost-inertial) at each of `queries` (ascending).
    func attitudes(at queries: [Double]) -> [Quaternion] {
        var next = 0 // the first sample later than the query
        return queries.map { t in
            while next < times.count && times[next] <= t { next += 1 }
            if next == 0 { return Self.turned(attitudes[0], by: rates[0], for: t - times[0]) }
            let k = next - 1
            return Self.turned(attitudes[k], by: rates[min(next, times.count - 1)], for: t - times[k])
        }
    }

    private static func turned(_ q: Quaternion, by rate: Vector3, for dt: Double) -> Quaternion {
        let angle = rate.norm * dt
        return angle == 0 ? q : (q * Quaternion(axis: rate, angle: angle)).normalized
    }
}
