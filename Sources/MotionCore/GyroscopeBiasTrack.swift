/// The gyroscope bias along a whole recording, for the offline smoother: measured wherever the
/// device rests and interpolated between those rests, so the motion between two rests uses
/// what both say (an online estimate knows only the rests before).
///
/// Rests are what ``AttitudeEstimator`` detects (its rest thresholds and minimum time, run over
/// the recording forward); each rest gives the mean gyroscope reading over it, at its middle
/// time. The bias is linear in time between consecutive rests and constant before the first
/// and after the last. A recording without a rest keeps the bias the estimator learned in
/// motion by its end (from the inclination corrections), constant throughout.
enum GyroscopeBiasTrack {
    /// The bias at each time, rad/s. `accelerometer` in G (gravity-vector sign), as the estimator takes it.
    static func biases(times: [Double], gyroscope: [Vector3], accelerometer: [Vector3],
                       parameters: AttitudeEstimatorParameters) -> [Vector3] {
        precondition(times.count == gyroscope.count && times.count == accelerometer.count, "one reading of each per time")
        var estimator = AttitudeEstimator(parameters: parameters)
        var rests: [(time: Double, bias: Vector3)] = []
        var run: (time: Double, sum: Vector3, count: Int)?
        func closeRun() {
            if let run { rests.append((run.time / Double(run.count), run.sum / Double(run.count))) }
            run = nil
        }
        for i in times.indices {
            estimator.update(gyroscope: gyroscope[i], at: times[i])
            estimator.update(accelerometer: accelerometer[i], at: times[i])
            guard estimator.state.atRest else {
                closeRun()
                continue
            }
            let sums = run ?? (0, .zero, 0)
            run = (sums.time + times[i], sums.sum + gyroscope[i], sums.count + 1)
        }
        closeRun()
        guard let first = rests.first, let last = rests.last else {
            return [Vector3](repeating: estimator.state.bias, count: times.count)
        }
        var next = 0 // the first rest later than the current time
        return times.map { t in
            while next < rests.count && rests[next].time <= t { next += 1 }
            if next == 0 { return first.bias }
            if next == rests.count { return last.bias }
            let (a, b) = (rests[next - 1], rests[next])
            return a.bias + (b.bias - a.bias) * ((t - a.time) / (b.time - a.time))
        }
    }
}
