import Foundation
import Testing
@testable import MotionCore

/// The offline smoother and its parts on synthetic recordings with known truth, and (when the
/// shared dataset is beside the clone) on a real one.
@Suite("AttitudeSmoother")
struct AttitudeSmootherTests {
    /// Reference-frame field (X north, Z up), µT.
    static let earth = Vector3(20, 0, -44)
    /// Gyroscope bias, rad/s (about 0.6, −0.5, 0.3 °/s).
    static let bias = Vector3(0.01, -0.008, 0.006)
    static let trusted: MotionEngine.Configuration = {
        var configuration = MotionEngine.Configuration()
        configuration.magnetometerCalibration = .trusted
        return configuration
    }()

    /// `before` seconds still, `motion` seconds of tumbling, then `after` seconds still in the
    /// last attitude, at 100 Hz.
    static func steps(before: Double = 0, motion: Double, after: Double) -> [TumblingMotion.Step] {
        func still(_ attitude: Quaternion, from start: Double, seconds: Double) -> [TumblingMotion.Step] {
            (0..<Int((seconds * 100).rounded())).map { i in TumblingMotion.Step(time: start + Double(i) * 0.01, attitude: attitude, rate: .zero) }
        }
        let moving = TumblingMotion(seconds: motion).steps.map { step in
            var step = step
            step.time += before
            return step
        }
        let last = moving[moving.count - 1]
        return still(.identity, from: 0, seconds: before) + moving + still(last.attitude, from: last.time + 0.01, seconds: after)
    }

    /// The recording of `steps` with the bias and a little noise; the accelerometer and
    /// magnetometer report the motion `accelerometerLag` and `magnetometerLag` samples late;
    /// `field` is the reference-frame field at each step (the earth's, unless bent by iron).
    static func records(_ steps: [TumblingMotion.Step], accelerometerLag: Int = 0, magnetometerLag: Int = 0,
                        field: (Int) -> Vector3 = { _ in earth }) -> [TraceRecord] {
        var random = SeededRandom(seed: 31)
        return steps.indices.map { i in
            let late = (steps[max(0, i - accelerometerLag)], steps[max(0, i - magnetometerLag)])
            return TraceRecord(time: steps[i].time,
                               accelerometer: late.0.gravity + random.gaussianVector(sigma: 0.005),
                               gyroscope: steps[i].rate + bias + random.gaussianVector(sigma: 0.002),
                               magnetometer: late.1.field(field(max(0, i - magnetometerLag))) + random.gaussianVector(sigma: 0.3))
        }
    }

    /// RMSE over the rows in `rows`, degrees (6D: heading offset removed).
    static func error(_ estimates: [Quaternion?], _ steps: [TumblingMotion.Step], rows: Range<Int>, sixD: Bool = false) -> OrientationError.Components {
        OrientationError.summarize(estimates: estimates, references: steps.map(\.attitude),
                                   evaluate: steps.indices.map(rows.contains), removeHeadingOffset: sixD).rmse
    }

    @Test("a bias present from the first sample: measured at the final rest, it corrects the motion before it, which the online estimator learns only late")
    func biasFromLaterRest() {
        let steps = Self.steps(motion: 60, after: 10)
        let records = Self.records(steps)
        let motion = 0..<6000
        let offline = Self.error(TraceFusion.smoothedAttitudes(for: records, frame: .xMagneticNorthZVertical, configuration: Self.trusted), steps, rows: motion)
        let online = Self.error(TraceFusion.attitudes(for: records, frame: .xMagneticNorthZVertical, configuration: Self.trusted), steps, rows: motion)
        #expect(offline.inclination < 0.2 && offline.total < 0.5, "offline \(offline)")
        #expect(online.inclination > 3 * offline.inclination, "online \(online), offline \(offline)")
    }

    @Test("the accelerometer's and the magnetometer's lags behind the gyroscope are found, and reading them at their lags is what makes the inclination right")
    func sensorLags() {
        let steps = Self.steps(motion: 60, after: 5)
        let records = Self.records(steps, accelerometerLag: 2, magnetometerLag: 3) // 20 and 30 ms
        let result = AttitudeSmoother().smooth(records)
        #expect(abs(result.accelerometerLag - 0.02) < 0.002, "accelerometer lag \(result.accelerometerLag)")
        #expect(abs((result.magnetometerLag ?? 0) - 0.03) < 0.002, "magnetometer lag \(String(describing: result.magnetometerLag))")
        var simultaneous = AttitudeSmootherParameters()
        simultaneous.estimatesSensorLags = false
        let unaware = AttitudeSmoother(parameters: simultaneous).smooth(records)
        #expect(unaware.accelerometerLag == 0 && unaware.magnetometerLag == 0)
        let motion = 0..<6000
        let found = Self.error(result.attitude9D, steps, rows: motion), ignored = Self.error(unaware.attitude9D, steps, rows: motion)
        #expect(found.inclination < 0.2 && found.total < 0.5, "with the lags \(found)")
        #expect(ignored.inclination > 2 * found.inclination && ignored.total > 2 * found.total, "without \(ignored), with \(found)")
    }

    @Test("iron near the path for 20 s of the motion (the field 40° off north and 20 % stronger): its fields are left out and the heading bridged from both sides")
    func disturbanceBridged() {
        let steps = Self.steps(motion: 70, after: 5)
        let bent = 2500..<4500
        let disturbed = Quaternion(axis: Vector3(0, 0, 1), angle: 40 * .pi / 180).rotate(Self.earth) * 1.2
        let records = Self.records(steps) { bent.contains($0) ? disturbed : Self.earth }
        let smoothed = Self.error(TraceFusion.smoothedAttitudes(for: records, frame: .xMagneticNorthZVertical, configuration: Self.trusted),
                                  steps, rows: bent)
        #expect(smoothed.heading < 1, "\(smoothed)")
        // Every field taken as it comes: the heading follows the iron.
        var credulous = AttitudeSmootherParameters()
        (credulous.magneticNormThreshold, credulous.magneticDipThreshold, credulous.headingOutlierIterations) = (10, 180, 0)
        let taken = Self.error(TraceFusion.smoothedAttitudes(for: records, frame: .xMagneticNorthZVertical, configuration: Self.trusted,
                                                             parameters: credulous), steps, rows: bent)
        #expect(taken.heading > 10, "\(taken)")
    }

    @Test("a 2 s gap splits the recording: each side is estimated on its own (the bias from its own rest), the heading from its own fields")
    func gapSplits() {
        let steps = Self.steps(before: 5, motion: 40, after: 5)
        var records = Self.records(steps)
        records.removeSubrange(2500..<2700)
        let kept = Array(steps[..<2500] + steps[2700...])
        let attitudes = TraceFusion.smoothedAttitudes(for: records, frame: .xMagneticNorthZVertical, configuration: Self.trusted)
        #expect(attitudes.allSatisfy { $0 != nil })
        let before = Self.error(attitudes, kept, rows: 0..<2500), after = Self.error(attitudes, kept, rows: 2500..<records.count)
        #expect(before.total < 0.5 && after.total < 0.5, "before \(before), after \(after)")
        // The 6D X restarts from wherever the device points after the gap, so the two 6D sides
        // are not one frame; the north frame is.
        let sixD = AttitudeSmoother().smooth(records).attitude6D
        let jump = OrientationError.components(of: OrientationError.errorQuaternion(estimate: sixD[2500]!, reference: sixD[2499]!))
        #expect(jump.heading > 5, "\(jump)")
    }

    @Test("one sensor per row (sensors sampled at their own times, as motionctl record writes them): the gyroscope integrated at its own times, the others' time offsets found as lags")
    func rowPerSensor() {
        let steps = Self.steps(before: 3, motion: 30, after: 3)
        let records = Self.records(steps)
        // The same readings, the accelerometer's stamped 2 ms and the magnetometer's 4 ms after
        // the gyroscope's, each in a row of its own: to the smoother they are 2 and 4 ms late.
        let split = records.flatMap { r in
            [TraceRecord(time: r.time, gyroscope: r.gyroscope), TraceRecord(time: r.time + 0.002, accelerometer: r.accelerometer),
             TraceRecord(time: r.time + 0.004, magnetometer: r.magnetometer)]
        }
        let result = TraceFusion.smoothed(split, configuration: Self.trusted)
        #expect(abs(result.accelerometerLag - 0.002) < 0.001 && abs((result.magnetometerLag ?? 0) - 0.004) < 0.001,
                "lags \(result.accelerometerLag), \(String(describing: result.magnetometerLag))")
        #expect(result.attitude9D.allSatisfy { $0 != nil })
        let separate = Self.error(stride(from: 0, to: split.count, by: 3).map { result.attitude9D[$0] }, steps, rows: 300..<3300)
        #expect(separate.inclination < 0.1 && separate.total < 0.15, "\(separate)")
    }

    @Test("without a magnetometer: the 6D attitude only")
    func noMagnetometer() {
        let steps = Self.steps(motion: 30, after: 5)
        let records = Self.records(steps).map { record in
            var record = record
            record.magnetometer = nil
            return record
        }
        let result = AttitudeSmoother().smooth(records)
        #expect(result.magnetometerLag == nil && result.attitude9D.allSatisfy { $0 == nil })
        let error = Self.error(result.attitude6D, steps, rows: 0..<3000, sixD: true)
        #expect(error.inclination < 0.2, "\(error)")
    }

    @Test("the same recording gives the same attitudes, bit for bit")
    func deterministic() {
        let records = Self.records(Self.steps(motion: 10, after: 3))
        let first = AttitudeSmoother().smooth(records), second = AttitudeSmoother().smooth(records)
        #expect(first.attitude9D == second.attitude9D && first.accelerometerLag == second.accelerometerLag)
    }

    // MARK: - Parts

    @Test("zero-phase low-pass: a slow sine comes out in phase (a one-way pass lags it), a constant unchanged to the ends")
    func zeroPhase() {
        let times = (0..<2000).map { Double($0) * 0.01 }
        let sine = times.map { Vector3(sin(2 * .pi * 0.2 * $0), 0, 0) }
        let smoothed = ZeroPhaseLowPass.filter(sine, times: times, tau: 0.1)
        var oneWay = ButterworthLowPass<Vector3>()
        let delayed = sine.map { oneWay.step($0, ButterworthCoefficients(tau: 0.1, dt: 0.01)) }
        let inside = 200..<1800 // away from the ends
        let worst = inside.map { abs(smoothed[$0].x - sine[$0].x) }.max()!, worstOneWay = inside.map { abs(delayed[$0].x - sine[$0].x) }.max()!
        #expect(worst < 1e-3 && worstOneWay > 0.1, "zero-phase \(worst), one way \(worstOneWay)")
        let constant = ZeroPhaseLowPass.filter([Vector3](repeating: Vector3(1, -2, 3), count: 500), times: Array(times[..<500]), tau: 3)
        #expect(constant.allSatisfy { isClose($0, Vector3(1, -2, 3), tolerance: 1e-9) })
    }

    @Test("sensor lag: the minimum of a parabola between grid points is found exactly; one at the range's end stays there")
    func lagSearch() {
        let lag = SensorLag.minimizing(range: -0.05...0.05, step: 0.005) { ($0 - 0.0123) * ($0 - 0.0123) }
        #expect(abs(lag - 0.0123) < 1e-12)
        #expect(SensorLag.minimizing(range: -0.05...0.05, step: 0.005) { -$0 } == 0.05)
    }

    @Test("heading smoother: headings around ±180° stay there (wrapped, not averaged to 0°); a 2 s burst of outliers is dropped")
    func headingSmoother() {
        let times = (0..<6000).map { Double($0) * 0.01 }
        var random = SeededRandom(seed: 3)
        let truth = 179 * Double.pi / 180
        var measured: [Double?] = times.map { _ in AttitudeEstimator.wrapped(truth + random.gaussian(sigma: 0.05)) }
        for i in 3000..<3200 { measured[i] = AttitudeEstimator.wrapped(truth + 1) } // 57° off
        let robust = HeadingSmoother(timeConstant: 20, outlierThreshold: 10 * .pi / 180, iterations: 3)
        let naive = HeadingSmoother(timeConstant: 20, outlierThreshold: 10 * .pi / 180, iterations: 0)
        func worst(_ headings: [Double]?) -> Double {
            (headings ?? []).map { abs(AttitudeEstimator.wrapped($0 - truth)) * 180 / .pi }.max() ?? .infinity
        }
        #expect(worst(robust.smooth(times: times, measured: measured)) < 0.5)
        #expect(worst(naive.smooth(times: times, measured: measured)) > 1.5)
        #expect(robust.smooth(times: times, measured: times.map { _ in nil }) == nil)
    }

    @Test("gyroscope bias track: each rest's mean, linear between rests, constant before the first and after the last")
    func biasTrack() {
        // 5 s still with one bias, 10 s turning, 5 s still with another.
        let (first, second) = (Vector3(0.01, 0, -0.01), Vector3(0.02, 0.01, 0))
        let times = (0..<2000).map { Double($0) * 0.01 }
        let gyroscope = times.map { t in t < 5 ? first : t < 15 ? Vector3(0, 0, 1) + first : second }
        let track = GyroscopeBiasTrack(times: times, gyroscope: gyroscope, accelerometer: times.map { _ in Vector3(0, 0, -1) },
                                       parameters: AttitudeEstimatorParameters())
        let biases = times.map(track.bias(at:))
        #expect(isClose(biases[0], first, tolerance: 1e-12) && isClose(biases[1999], second, tolerance: 1e-12))
        // Between the rests: on the line from one to the other, in order.
        let (a, b, c) = (biases[700], biases[1000], biases[1300])
        #expect(isClose(b - a, c - b, tolerance: 1e-12) && (b - a).dot(second - first) > 0, "\(a), \(b), \(c)")
        #expect((c - first).norm < (second - first).norm && (second - a).norm < (second - first).norm)
    }

    // MARK: - A real recording

    static let broad = "dec3_95.2hz/30_disturbed_stationary_magnet_C.csv"

    @Test("behavioural floor on a real recording (BROAD 30, fast motion near a magnet): the accelerometer's lag found, the inclination below the online estimator's; online, reading the sensors at their learned lags is what brings its inclination down",
          .enabled(if: BroadDataset.exists(broad), BroadDataset.missing))
    func broadFloor() throws {
        let trace = try BroadDataset.trace(Self.broad)
        let references = trace.records.map(\.reference)
        let evaluate = trace.records.map { $0.movement ?? false }
        func score(_ estimates: [Quaternion?]) -> OrientationError.Components {
            OrientationError.summarize(estimates: estimates.map { $0.map(OrientationError.eastNorthUp(fromNorthWestUp:)) },
                                       references: references, evaluate: evaluate, removeHeadingOffset: false).rmse
        }
        let result = TraceFusion.smoothed(trace.records)
        let offline = score(result.attitude9D), online = score(TraceFusion.attitudes(for: trace.records, frame: .xMagneticNorthZVertical))
        var simultaneous = MotionEngine.Configuration()
        simultaneous.compensatesSensorLags = false
        let unaware = score(TraceFusion.attitudes(for: trace.records, frame: .xMagneticNorthZVertical, configuration: simultaneous))
        // A floor, not the benchmark (docs/ACCURACY.md: offline 1.46° / 0.85° here, offline VQF
        // 3.74° / 1.62°; online 2.6° / 1.25°, 2.34° / 2.05° with the lags ignored).
        #expect(offline.total < 1.8 && offline.inclination < 1.1, "offline \(offline)")
        #expect(offline.inclination < online.inclination - 0.2, "offline \(offline), online \(online)")
        #expect(online.inclination < unaware.inclination - 0.5, "online \(online), lags ignored \(unaware)")
        #expect(result.accelerometerLag > 0.002 && result.accelerometerLag < 0.008, "accelerometer lag \(result.accelerometerLag)")
    }
}
