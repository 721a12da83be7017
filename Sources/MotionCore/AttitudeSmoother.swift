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
///    (``GyroscopeBiasTrack``), so the motion before the first rest is integrated with it too.
/// 2. Sensor lags: the accelerometer's and the magnetometer's delays behind the gyroscope are
///    estimated from the recording (``SensorLag``) and each sensor is read that much later.
/// 3. Inclination: the bias-corrected gyroscope is integrated; the specific force, turned into
///    that frame, is low-passed forward and backward (``ZeroPhaseLowPass``, no delay), and the
///    smallest turn making it vertical, accumulated sample by sample, corrects the drift.
/// 4. Heading: per magnetometer sample, the heading its field gives in the 6D frame; samples
///    whose field norm or dip angle differ from the recording's median are left out, the rest
///    smoothed both ways by ``HeadingSmoother``, which also drops outliers — a disturbance is
///    bridged from the headings before and after it.
///
/// Pure and deterministic; time comes from the samples' timestamps (any rate, per-sensor rows
/// are fine: each sensor is interpolated at the gyroscope's times). A gap longer than the
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

    /// The band whose horizontal energy the accelerometer's lag minimises: the specific force
    /// low-passed at 1 s (linear accelerations average out) minus its 10 s low-pass (what the
    /// inclination correction removes anyway).
    private static let accelerometerLagBand = (fast: 1.0, slow: 10.0)
    /// The magnetometer's lag minimises the field's energy above a 1 s low-pass: the earth's
    /// field has none in an inertial frame, unlike the specific force.
    private static let magnetometerLagTau = 1.0

    public init(parameters: AttitudeSmootherParameters = AttitudeSmootherParameters()) {
        self.parameters = parameters
    }

    public func smooth(_ records: [TraceRecord]) -> Result {
        let gap = parameters.estimator.maximumGap
        let times = records.map(\.time)
        let gyroscope = SampleSeries(records, \.gyroscope).values(at: times, lag: 0, maximumGap: gap)
        let accelerometer = SampleSeries(records, \.accelerometer)
        let magnetometer = SampleSeries(records, \.magnetometer)
        let simultaneous = accelerometer.values(at: times, lag: 0, maximumGap: gap)
        var stretches = Self.stretches(times: times, gyroscope: gyroscope, accelerometer: simultaneous, maximumGap: gap).map { range in
            Stretch(range: range, times: Array(times[range]), gyroscope: gyroscope[range].map { $0! },
                    accelerometer: simultaneous[range].map { $0! }, parameters: parameters.estimator)
        }

        // Inclination, with the accelerometer read at its lag.
        let lagRange = -parameters.maximumSensorLag...parameters.maximumSensorLag
        func forces(_ stretch: Stretch, lag: Double) -> [Vector3] {
            zip(accelerometer.values(at: stretch.times, lag: lag, maximumGap: gap), stretch.accelerometer).map { -($0 ?? $1) }
        }
        let accelerometerLag = parameters.estimatesSensorLags ? SensorLag.minimizing(range: lagRange, step: parameters.sensorLagStep) { lag in
            stretches.reduce(0) { sum, stretch in
                let inertial = zip(stretch.integrated, forces(stretch, lag: lag)).map { $0.rotate($1) }
                let fast = ZeroPhaseLowPass.filter(inertial, times: stretch.times, tau: Self.accelerometerLagBand.fast)
                let slow = ZeroPhaseLowPass.filter(inertial, times: stretch.times, tau: Self.accelerometerLagBand.slow)
                return sum + zip(fast, slow).reduce(0) { $0 + ($1.0.x - $1.1.x) * ($1.0.x - $1.1.x) + ($1.0.y - $1.1.y) * ($1.0.y - $1.1.y) }
            }
        } : 0
        for i in stretches.indices {
            stretches[i].correctInclination(forces: forces(stretches[i], lag: accelerometerLag), tau: parameters.accelerometerTau)
        }

        // Heading, with the magnetometer read at its lag.
        var result = Result(attitude6D: Array(repeating: nil, count: records.count), attitude9D: Array(repeating: nil, count: records.count),
                            accelerometerLag: accelerometerLag, magnetometerLag: nil)
        for stretch in stretches { for (i, q) in zip(stretch.range, stretch.attitude6D) { result.attitude6D[i] = q } }
        guard !magnetometer.times.isEmpty else { return result }
        let undisturbed = stretches.map { undisturbedFields($0, magnetometer.values(at: $0.times, lag: 0, maximumGap: gap)) }
        let magnetometerLag = parameters.estimatesSensorLags ? SensorLag.minimizing(range: lagRange, step: parameters.sensorLagStep) { lag in
            zip(stretches, undisturbed).reduce(0) { sum, pair in
                let (stretch, usable) = pair
                let fields = zip(stretch.attitude6D, magnetometer.values(at: stretch.times, lag: lag, maximumGap: gap)).map { q, m in m.map(q.rotate) ?? .zero }
                let slow = ZeroPhaseLowPass.filter(fields, times: stretch.times, tau: Self.magnetometerLagTau)
                return sum + zip(zip(fields, slow), usable).reduce(0) { $0 + ($1.1 ? ($1.0.0 - $1.0.1).dot($1.0.0 - $1.0.1) : 0) }
            }
        } : 0
        result.magnetometerLag = magnetometerLag
        let smoother = HeadingSmoother(timeConstant: parameters.headingTau, outlierThreshold: parameters.headingOutlierThreshold * .pi / 180,
                                       iterations: parameters.headingOutlierIterations)
        for (stretch, usable) in zip(stretches, undisturbed) {
            let fields = magnetometer.values(at: stretch.times, lag: magnetometerLag, maximumGap: gap)
            let measured: [Double?] = stretch.attitude6D.indices.map { i in
                guard usable[i], let m = fields[i] else { return nil }
                let e = stretch.attitude6D[i].rotate(m)
                guard e.x * e.x + e.y * e.y > 0 else { return nil }
                return -atan2(e.y, e.x) // the turn about Z taking the field's horizontal part to +X
            }
            guard let headings = smoother.smooth(times: stretch.times, measured: measured) else { continue }
            for (k, i) in stretch.range.enumerated() {
                result.attitude9D[i] = (Quaternion(axis: Vector3(0, 0, 1), angle: headings[k]) * stretch.attitude6D[k]).normalized
            }
        }
        return result
    }

    /// Per time of the stretch, whether a magnetometer reading exists and its field agrees with
    /// the stretch's median norm and dip angle (in the 6D frame).
    private func undisturbedFields(_ stretch: Stretch, _ fields: [Vector3?]) -> [Bool] {
        let inertial = zip(stretch.attitude6D, fields).map { q, m in m.map(q.rotate) }
        func dip(_ e: Vector3) -> Double { atan2(-e.z, (e.x * e.x + e.y * e.y).squareRoot()) }
        let present = inertial.compactMap { $0 }
        guard !present.isEmpty else { return Array(repeating: false, count: fields.count) }
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
    /// The accelerometer at the stretch's own times (G, gravity-vector sign).
    let accelerometer: [Vector3]
    /// The bias-corrected gyroscope integrated from the identity: device → almost-inertial.
    let integrated: [Quaternion]
    /// Device → Z up: the integrated attitude until ``correctInclination(forces:tau:)``.
    private(set) var attitude6D: [Quaternion]

    init(range: Range<Int>, times: [Double], gyroscope: [Vector3], accelerometer: [Vector3], parameters: AttitudeEstimatorParameters) {
        let bias = GyroscopeBiasTrack.biases(times: times, gyroscope: gyroscope, accelerometer: accelerometer, parameters: parameters)
        var q = Quaternion.identity
        var integrated = [q]
        integrated.reserveCapacity(times.count)
        for i in times.indices.dropFirst() {
            // As online: the rate of the sample ending the step, over the step.
            let rate = gyroscope[i] - bias[i]
            let angle = rate.norm * (times[i] - times[i - 1])
            if angle > 0 { q = (q * Quaternion(axis: rate, angle: angle)).normalized }
            integrated.append(q)
        }
        self.range = range
        self.times = times
        self.accelerometer = accelerometer
        self.integrated = integrated
        attitude6D = integrated
    }

    /// Turns the integrated attitude so the zero-phase low-pass of the specific force (`forces`,
    /// device frame, one per time) points up, by the smallest turn, accumulated sample by sample
    /// as online.
    mutating func correctInclination(forces: [Vector3], tau: Double) {
        let inertial = zip(integrated, forces).map { $0.rotate($1) }
        var correction = Quaternion.identity
        for (i, v) in ZeroPhaseLowPass.filter(inertial, times: times, tau: tau).enumerated() {
            let up = correction.rotate(v)
            if up.norm > 1e-9 {
                correction = (AttitudeEstimator.turnToVertical(up / up.norm) * correction).normalized
            }
            attitude6D[i] = (correction * integrated[i]).normalized
        }
    }
}
