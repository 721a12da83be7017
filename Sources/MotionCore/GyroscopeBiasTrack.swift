/// The gyroscope bias along a whole recording, for the offline smoother: measured wherever the
/// device rests and interpolated between those rests, so the motion between two rests uses
/// what both say (an online estimate knows only the rests before).
///
/// Rests are what ``AttitudeEstimator`` detects (its rest thresholds and minimum time, run over
/// the recording forward); each rest gives the mean gyroscope reading over it, at its middle
/// time. The bias is linear in time between consecutive rests and constant before the first
/// and after the last. A recording without a rest keeps the bias the estimator learned in
/// motion by its end (from the inclination corrections), constant throughout.
struct GyroscopeBiasTrack: Sendable {
    /// Each rest's middle time and mean reading, in time order.
    private var rests: [(time: Double, bias: Vector3)] = []
    /// The bias without any rest.
    private let learned: Vector3

    /// Runs the rest detection over readings taken together at `times` (`accelerometer` in G,
    /// gravity-vector sign, as the estimator takes it).
    init(times: [Double], gyroscope: [Vector3], accelerometer: [Vector3], parameters: AttitudeEstimatorParameters) {
        precondition(times.count == gyroscope.count && times.count == accelerometer.count, "one reading of each per time")
        var estimator = AttitudeEstimator(parameters: parameters)
        var run: (time: Double, sum: Vector3, count: Int)?
        for i in times.indices {
            estimator.update(gyroscope: gyroscope[i], at: times[i])
            estimator.update(accelerometer: accelerometer[i], at: times[i])
            if estimator.state.atRest {
                let sums = run ?? (0, .zero, 0)
                run = (sums.time + times[i], sums.sum + gyroscope[i], sums.count + 1)
            }
            if let sums = run, !estimator.state.atRest || i == times.count - 1 {
                rests.append((sums.time / Double(sums.count), sums.sum / Double(sums.count)))
                run = nil
            }
        }
        learned = estimator.state.bias
    }

    /// The bias at `time`, rad/s.
    func bias(at time: Double) -> Vector3 {
        guard let first = rests.first, let last = rests.last else { return learned }
        if time <= first.time { return first.bias }
        if time >= last.time { return last.bias }
        // The first rest later than `time` (rests are few: a linear search).
        let next = rests.firstIndex { $0.time > time }!
        let (a, b) = (rests[next - 1], rests[next])
        return a.bias + (b.bias - a.bias) * ((time - a.time) / (b.time - a.time))
    }
}
