import Glibc

/// The attitude along a whole recorded trace, estimated offline (acausally): every value uses
/// the samples after it as well as those before, so it is more accurate than what the online
/// ``AttitudeEstimator`` can know at that moment — and usable only when the recording is
/// complete (`motionctl fuse --offline`), never live.
///
/// It keeps the online estimator's structure (Laidig & Seel's VQF: gyroscope strapdown, the
/// inclination from the specific force low-passed in an almost-inertial frame, the heading as
/// a separate offset about the vertical, so a magnetic disturbance never tilts the attitude),
/// and uses the whole recording in each part:
///
/// 1. Gyroscope bias: measured at every rest of the recording and interpolated between them
///    (``GyroscopeBiasTrack``), so the motion before the first rest is integrated with it too;
///    the gyroscope integrated at its own sample times (``StrapdownIntegration``).
/// 2. Sensor lags: the accelerometer's and the magnetometer's delays behind the gyroscope are
///    estimated from the recording (``SensorLag``), and each of their samples is turned by the
///    attitude at the time it describes.
/// 3. Inclination: the bias-corrected gyroscope is integrated; the specific force, turned into
///    that frame, is low-passed forward and backward (``ZeroPhaseLowPass``, no delay), and the
///    smallest turn making it vertical, accumulated sample by sample, corrects the drift.
/// 4. Heading: per magnetometer sample, the heading its field gives in the 6D frame; samples
///    whose field norm or dip angle differ from the recording's median are left out, the rest
///    smoothed both ways by ``HeadingSmoother``, which also drops outliers — a disturbance is
///    bridged from the headings before and after it.
///
/// Pure and deterministic; time comes from the samples' timestamps (any rate; rows holding
/// only some sensors are fine: every sensor is read at every row's time, interpolated where the
/// row lacks it). A gap longer than the
/// online estimator's `maximumGap` splits the recording into stretches estimated separately.
/// Magnetometer readings are taken as calibrated (``TraceFusion`` calibrates them first).
public struct AttitudeSmoother: Sendable {
    public var parameters: AttitudeSmootherParameters

    /// What the smoother found for one recording.
    public struct Result: Sendable {
        /// Per record: device → Z up, X wherever the device pointed where its stretch starts
        /// (nil where the gyroscope or accelerometer has no reading near the record's time).
        public var attitude6D: [Quaternion?]
        /// Per record: device → X magnetic north, Y west, Z up (also nil in a stretch without a
        /// usable magnetometer reading).
        public var attitude9D: [Quaternion?]
        /// How much later than the gyroscope the accelerometer's samples are, seconds.
        public var accelerometerLag: Double
        /// The same for the magnetometer; nil without magnetometer readings.
        public var magnetometerLag: Double?
    }

    public init(parameters: AttitudeSmootherParameters = AttitudeSmootherParameters()) {
        self.parameters = parameters
    }

    /// Estimates the attitude at every record of a whole trace (records in time order, sensors
    /// as ``TraceRecord`` holds them).
    public func smooth(_ records: [TraceRecord]) -> Result {
        let gap = parameters.estimator.maximumGap
        let times = records.map(\.time)
        let gyroscopeSeries = SampleSeries(records, \.gyroscope)
        let gyroscope = gyroscopeSeries.values(at: times, maximumGap: gap)
        let accelerometer = SampleSeries(records, \.accelerometer).values(at: times, maximumGap: gap)
        let magnetometer = SampleSeries(records, \.magnetometer)
        var stretches = Self.stretches(times: times, gyroscope: gyroscope, accelerometer: accelerometer, maximumGap: gap).map { range in
            let samples = gyroscopeSeries.indices(covering: times[range.lowerBound], times[range.upperBound - 1], maximumGap: gap)
            return Stretch(range: range, times: Array(times[range]), gyroscope: gyroscope[range].map { $0! }, accelerometer: accelerometer[range].map { $0! },
                           gyroscopeSamples: (Array(gyroscopeSeries.times[samples]), Array(gyroscopeSeries.values[samples])), parameters: parameters.estimator)
        }
        var result = Result(attitude6D: Array(repeating: nil, count: records.count), attitude9D: Array(repeating: nil, count: records.count),
                            accelerometerLag: 0, magnetometerLag: nil)
        guard !stretches.isEmpty else { return result }

        // Inclination, with the accelerometer's samples turned by the attitude at their lagged times.
        result.accelerometerLag = estimatedLag { lag in stretches.reduce(0) { $0 + $1.forceWobble(lag: lag) } }
        for i in stretches.indices {
            stretches[i].correctInclination(lag: result.accelerometerLag, tau: parameters.accelerometerTau)
            for (k, q) in zip(stretches[i].range, stretches[i].attitude6D) { result.attitude6D[k] = q }
        }

        // Heading, the same way.
        guard !magnetometer.times.isEmpty else { return result }
        let fields = stretches.map { magnetometer.values(at: $0.times, maximumGap: gap) }
        let undisturbed = zip(stretches, fields).map { undisturbedFields($0.inertial($1, lag: 0, attitudes: $0.attitude6D)) }
        let magnetometerLag = estimatedLag { lag in
            stretches.indices.reduce(0) { $0 + stretches[$1].fieldWobble(fields[$1], usable: undisturbed[$1], lag: lag) }
        }
        result.magnetometerLag = magnetometerLag
        let smoother = HeadingSmoother(timeConstant: parameters.headingTau, outlierThreshold: parameters.headingOutlierThreshold * .pi / 180,
                                       iterations: parameters.headingOutlierIterations)
        for (stretch, fields) in zip(stretches, fields) {
            let inertial = stretch.inertial(fields, lag: magnetometerLag, attitudes: stretch.attitude6D)
            // Disturbances judged again at the lag found: at 300 °/s, 15 ms turn the dip by 4.5°.
            let measured: [Double?] = zip(inertial, undisturbedFields(inertial)).map { e, usable in
                guard usable, let e, e.x * e.x + e.y * e.y > 0 else { return nil }
                return -atan2(e.y, e.x) // the turn about Z taking the field's horizontal part to +X
            }
            guard let headings = smoother.smooth(times: stretch.times, measured: measured) else { continue }
            for (k, i) in stretch.range.enumerated() {
                result.attitude9D[i] = stretch.attitude6D[k].turnedAboutVertical(by: headings[k])
            }
        }
        return result
    }

    /// The lag minimising `wobble` in the configured range, or 0 when lags are not estimated.
    private func estimatedLag(_ wobble: (Double) -> Double) -> Double {
        guard parameters.estimatesSensorLags else { return 0 }
        return SensorLag.minimizing(range: -parameters.maximumSensorLag...parameters.maximumSensorLag,
                                    step: parameters.sensorLagStep, cost: wobble)
    }

    /// Per time, whether a field (turned into the 6D frame) exists and agrees with the median
    /// norm and dip angle of all of them.
    private func undisturbedFields(_ inertial: [Vector3?]) -> [Bool] {
        func dip(_ e: Vector3) -> Double { atan2(-e.z, (e.x * e.x + e.y * e.y).squareRoot()) }
        let present = inertial.compactMap { $0 }
        guard !present.isEmpty else { return Array(repeating: false, count: inertial.count) }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let norm = median(present.map(\.norm)), angle = median(present.map(dip))
        return inertial.map { e in
            guard let e, norm > 0 else { return false }
            return abs(e.norm - norm) <= parameters.magneticNormThreshold * norm
                && abs(dip(e) - angle) * 180 / .pi <= parameters.magneticDipThreshold
        }
    }

    /// Runs of consecutive records with a gyroscope and an accelerometer reading, no more than
    /// `maximumGap` apart.
    private static func stretches(times: [Double], gyroscope: [Vector3?], accelerometer: [Vector3?], maximumGap: Double) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var start: Int?
        for i in times.indices {
            let usable = gyroscope[i] != nil && accelerometer[i] != nil
            if let s = start, !usable || times[i] - times[i - 1] > maximumGap {
                out.append(s..<i)
                start = nil
            }
            if usable && start == nil { start = i }
        }
        if let s = start { out.append(s..<times.count) }
        return out
    }
}

/// One stretch of the recording without gaps, through the smoother's stages.
private struct Stretch {
    let range: Range<Int>
    let times: [Double]
    /// The specific force at the stretch's times (G, up at rest).
    let forces: [Vector3]
    /// The bias-corrected gyroscope integrated from the identity: device → almost-inertial.
    let integrated: [Quaternion]
    /// Device → Z up: the integrated attitude until ``correctInclination(lag:tau:)``.
    private(set) var attitude6D: [Quaternion]

    /// `gyroscope` and `accelerometer` are the readings at the stretch's `times` (interpolated
    /// where a row lacks one), for rest detection and the specific force; the integration runs
    /// on the gyroscope's own samples (`gyroscopeSamples`, covering the stretch).
    init(range: Range<Int>, times: [Double], gyroscope: [Vector3], accelerometer: [Vector3],
         gyroscopeSamples: (times: [Double], rates: [Vector3]), parameters: AttitudeEstimatorParameters) {
        let bias = GyroscopeBiasTrack(times: times, gyroscope: gyroscope, accelerometer: accelerometer, parameters: parameters)
        let strapdown = StrapdownIntegration(times: gyroscopeSamples.times,
                                             rates: zip(gyroscopeSamples.times, gyroscopeSamples.rates).map { $1 - bias.bias(at: $0) })
        self.range = range
        self.times = times
        forces = accelerometer.map { -$0 }
        integrated = strapdown.attitudes(at: times)
        attitude6D = integrated
    }

    /// Device-frame `vectors`, one per time, sampled `lag` late, turned by `attitudes` (one per
    /// time) as they stood `lag` before each time: interpolated between the neighbouring ones
    /// (normalised linear interpolation: they are a sample interval apart), the first or last
    /// beyond the stretch's ends. The attitude is interpolated, not the samples: that would
    /// smooth their noise, more between two samples than at one, and pull the lag search to
    /// half-sample lags.
    func inertial(_ vectors: [Vector3], lag: Double, attitudes: [Quaternion]) -> [Vector3] {
        inertial(vectors.map(Optional.some), lag: lag, attitudes: attitudes).map { $0! }
    }

    func inertial(_ vectors: [Vector3?], lag: Double, attitudes: [Quaternion]) -> [Vector3?] {
        var next = 0 // index of the first time later than the one sought
        return zip(times, vectors).map { time, vector in
            guard let vector else { return nil }
            let t = time - lag
            while next < times.count && times[next] <= t { next += 1 }
            let q: Quaternion
            if next == 0 {
                q = attitudes[0]
            } else if next == times.count || times[next - 1] == t {
                q = attitudes[next - 1]
            } else {
                let (a, b) = (attitudes[next - 1], attitudes[next])
                let f = (t - times[next - 1]) / (times[next] - times[next - 1])
                let s = (a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z) < 0 ? -f : f // the shorter way
                q = Quaternion(w: a.w * (1 - f) + b.w * s, x: a.x * (1 - f) + b.x * s, y: a.y * (1 - f) + b.y * s,
                               z: a.z * (1 - f) + b.z * s).normalized
            }
            return q.rotate(vector)
        }
    }

    /// The band whose horizontal energy shows the accelerometer's lag: the specific force
    /// low-passed at 1 s (linear accelerations average out) minus its 10 s low-pass (what the
    /// inclination correction removes anyway).
    private static let forceBand = (fast: 1.0, slow: 10.0)
    /// The fields' energy above this low-pass shows the magnetometer's lag: the earth's field
    /// has none in an inertial frame (the specific force does: linear acceleration).
    private static let fieldLowPassTau = 1.0

    /// How much the specific force, read `lag` late, wobbles horizontally in the inertial frame
    /// (its energy in ``forceBand``): least at the accelerometer's lag.
    func forceWobble(lag: Double) -> Double {
        let inertial = inertial(forces, lag: lag, attitudes: integrated)
        let fast = ZeroPhaseLowPass.filter(inertial, times: times, tau: Self.forceBand.fast)
        let slow = ZeroPhaseLowPass.filter(inertial, times: times, tau: Self.forceBand.slow)
        return zip(fast, slow).reduce(0) { sum, pair in
            let d = pair.0 - pair.1
            return sum + d.x * d.x + d.y * d.y
        }
    }

    /// How much the `usable` fields, read `lag` late, wobble in the 6D frame (their energy
    /// above a ``fieldLowPassTau`` low-pass): least at the magnetometer's lag.
    func fieldWobble(_ fields: [Vector3?], usable: [Bool], lag: Double) -> Double {
        let inertial = inertial(fields, lag: lag, attitudes: attitude6D).map { $0 ?? .zero }
        let slow = ZeroPhaseLowPass.filter(inertial, times: times, tau: Self.fieldLowPassTau)
        return inertial.indices.reduce(0) { sum, i in
            guard usable[i] else { return sum }
            let d = inertial[i] - slow[i]
            return sum + d.dot(d)
        }
    }

    /// Turns the integrated attitude so the zero-phase low-pass of the specific force (read
    /// `lag` late) points up, by the smallest turn, accumulated sample by sample as online.
    mutating func correctInclination(lag: Double, tau: Double) {
        var correction = Quaternion.identity
        for (i, v) in ZeroPhaseLowPass.filter(inertial(forces, lag: lag, attitudes: integrated), times: times, tau: tau).enumerated() {
            let up = correction.rotate(v)
            if up.norm > 1e-9 {
                correction = (AttitudeEstimator.turnToVertical(up / up.norm) * correction).normalized
            }
            attitude6D[i] = (correction * integrated[i]).normalized
        }
    }
}
