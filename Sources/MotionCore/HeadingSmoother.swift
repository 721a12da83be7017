/// The heading offset of a whole recording (the turn about the vertical from the 6D attitude to
/// north), smoothed from per-sample magnetometer headings offline: a Rauch–Tung–Striebel
/// smoother (a Kalman filter forward, then a pass backward) on a heading that drifts as a
/// random walk. Each value uses the measurements before and after it, so a stretch without
/// usable ones (a magnetic disturbance) is bridged from both sides, not held from one.
///
/// The walk's rate and the measurement noise matter only through their ratio, given as a time
/// constant τ: measurements `dt` apart count with variance 1/dt, the walk adds dt/τ² per step,
/// which makes the filter a first-order low-pass of τ in steady state. Outliers (fields bent by
/// nearby iron that the norm and dip tests miss) are removed by smoothing again without the
/// measurements farther than `outlierThreshold` from the last result, `iterations` times.
struct HeadingSmoother: Sendable {
    var timeConstant: Double
    /// Radians.
    var outlierThreshold: Double
    var iterations: Int

    /// The smoothed heading at every time (radians, in [−π, π]), from the `measured` headings
    /// (nil: none at that time, or rejected beforehand); nil when there is no measurement at all.
    func smooth(times: [Double], measured: [Double?]) -> [Double]? {
        precondition(times.count == measured.count, "one measurement slot per time")
        var used = measured
        guard var heading = Self.rts(times: times, measured: used, tau: timeConstant) else { return nil }
        for _ in 0..<iterations {
            var changed = false
            for i in used.indices {
                guard let z = used[i], abs(AttitudeEstimator.wrapped(z - heading[i])) > outlierThreshold else { continue }
                used[i] = nil
                changed = true
            }
            guard changed, let again = Self.rts(times: times, measured: used, tau: timeConstant) else { break }
            heading = again
        }
        return heading
    }

    private static func rts(times: [Double], measured: [Double?], tau: Double) -> [Double]? {
        guard measured.contains(where: { $0 != nil }) else { return nil }
        let n = times.count
        // Forward: the filtered heading and its variance (infinite before the first measurement).
        var filtered = [Double](repeating: 0, count: n), variance = [Double](repeating: .infinity, count: n)
        var x = 0.0, p = Double.infinity
        let walk = 1 / (tau * tau)
        for i in 0..<n {
            let dt = i > 0 ? max(0, times[i] - times[i - 1]) : 0
            p += walk * dt
            // A measurement stands for the time since the previous sample (the first, for the
            // time to the next); one at a repeated time adds nothing.
            let span = i > 0 ? dt : (n > 1 ? times[1] - times[0] : 1)
            if let z = measured[i], span > 0 {
                let r = 1 / span
                if p.isInfinite {
                    (x, p) = (z, r)
                } else {
                    let k = p / (p + r)
                    x = AttitudeEstimator.wrapped(x + k * AttitudeEstimator.wrapped(z - x))
                    p *= 1 - k
                }
            }
            (filtered[i], variance[i]) = (x, p)
        }
        // Backward: each value corrected by the smoothed one after it.
        var smoothed = filtered
        for i in stride(from: n - 2, through: 0, by: -1) {
            let dt = max(0, times[i + 1] - times[i])
            let gain = variance[i].isInfinite ? 1 : variance[i] / (variance[i] + walk * dt)
            smoothed[i] = AttitudeEstimator.wrapped(filtered[i] + gain * AttitudeEstimator.wrapped(smoothed[i + 1] - filtered[i]))
        }
        return smoothed
    }
}
