import Foundation
import Testing
import MotionCore

/// The engine as the daemon uses it: warm-up, frame availability, the four frames and headings
/// on canonical poses, persistence, calibration and the axis self-check end to end.
@Suite("MotionEngine")
struct MotionEngineTests {
    static let deg = Double.pi / 180
    /// Earth field in the north frame (X north, Y west, Z up), µT: 20 horizontal, 44 down.
    static let earth = Vector3(20, 0, -44)

    /// Feeds a still device for `seconds` at 100 Hz in `pose` (device → north frame).
    static func hold(_ engine: inout MotionEngine, pose: Quaternion, from start: Double = 0, seconds: Double = 2,
                     magnetometer: Bool = true) {
        for i in 0..<Int(seconds * 100) {
            let t = start + Double(i) * 0.01
            engine.update(Sample(kind: .gyroscope, timestamp: t, vector: .zero))
            engine.update(Sample(kind: .accelerometer, timestamp: t, vector: pose.inverse.rotate(Vector3(0, 0, -1))))
            if magnetometer {
                engine.update(Sample(kind: .magnetometer, timestamp: t, vector: pose.inverse.rotate(earth)))
            }
        }
    }

    /// Flat, face up, top edge pointing `heading` degrees clockwise from north.
    static func flat(heading: Double) -> Quaternion {
        // Top (+y) to north is a −90° turn about Z; each further degree clockwise is another −1°.
        Quaternion(axis: Vector3(0, 0, 1), angle: -(90 + heading) * deg)
    }

    static func trusted(declination: Double? = nil) -> MotionEngine.Configuration {
        var configuration = MotionEngine.Configuration()
        configuration.magnetometerCalibration = .trusted
        configuration.declination = declination
        return configuration
    }

    @Test("a convertible: the display and base accelerometers give the hinge angle; without a base, none")
    func hingeAngle() {
        var engine = MotionEngine()
        var machine = SimulatedConvertible(steps: [.init(hinge: 120, baseAttitude: SimulatedConvertible.onTable, turn: 0, hold: 2)])
        for i in 0..<100 {
            let t = Double(i) * 0.02
            let readings = machine.readings(at: t)
            engine.update(Sample(kind: .baseAccelerometer, timestamp: t, vector: readings.base))
            engine.update(Sample(kind: .accelerometer, timestamp: t + 0.001, vector: readings.display))
        }
        let angle = engine.hingeAngle
        #expect(angle?.accuracy == .high)
        #expect(abs((angle?.degrees ?? 0) - 120) < 2, "\(String(describing: angle))")

        var slate = MotionEngine()
        for i in 0..<100 { slate.update(Sample(kind: .accelerometer, timestamp: Double(i) * 0.02, vector: Vector3(0, 0, -1))) }
        #expect(slate.hingeAngle == nil)
    }

    @Test("a convertible folded on its side: the base gyroscope with the display's carries the angle; the display's alone cannot")
    func hingeOnItsSide() {
        let side = SimulatedConvertible.onItsSide, table = SimulatedConvertible.onTable
        // Flat on a table, stood on its side, then folded to 90° there.
        let steps: [SimulatedConvertible.Step] = [.init(hinge: 180, baseAttitude: table, turn: 0, hold: 1),
                                                  .init(hinge: 180, baseAttitude: side, turn: 1, hold: 1),
                                                  .init(hinge: 90, baseAttitude: side, turn: 1, hold: 1)]
        func run(baseGyroscope: Bool) -> HingeAngle? {
            var engine = MotionEngine()
            var machine = SimulatedConvertible(steps: steps)
            for i in 0..<Int(machine.duration * 100) {
                let t = Double(i) * 0.01
                let readings = machine.readings(at: t)
                if baseGyroscope { engine.update(Sample(kind: .baseGyroscope, timestamp: t, vector: readings.baseRate)) }
                engine.update(Sample(kind: .gyroscope, timestamp: t, vector: readings.displayRate))
                engine.update(Sample(kind: .baseAccelerometer, timestamp: t, vector: readings.base))
                engine.update(Sample(kind: .accelerometer, timestamp: t + 0.001, vector: readings.display))
            }
            return engine.hingeAngle
        }
        let carried = run(baseGyroscope: true)
        #expect(abs((carried?.degrees ?? 0) - 90) < 5 && carried?.accuracy == .low, "\(String(describing: carried))")
        let held = run(baseGyroscope: false)
        #expect(abs((held?.degrees ?? 0) - 180) < 5 && held?.accuracy == .held, "\(String(describing: held))")
    }

    @Test("warm-up: nothing before an accelerometer and a gyroscope sample; magnetic frames wait for the magnetometer")
    func warmUp() {
        var engine = MotionEngine(configuration: Self.trusted())
        engine.magnetometerPresent = true
        #expect(throws: DeviceMotionUnavailable.warmingUp) { try engine.deviceMotion(in: .xArbitraryZVertical) }
        engine.update(Sample(kind: .accelerometer, timestamp: 0, vector: Vector3(0, 0, -1)))
        #expect(throws: DeviceMotionUnavailable.warmingUp) { try engine.deviceMotion(in: .xArbitraryZVertical) }
        engine.update(Sample(kind: .gyroscope, timestamp: 0.01, vector: .zero))
        #expect((try? engine.deviceMotion(in: .xArbitraryZVertical)) != nil)
        #expect(throws: DeviceMotionUnavailable.warmingUp) { try engine.deviceMotion(in: .xMagneticNorthZVertical) }
        #expect(throws: DeviceMotionUnavailable.warmingUp) { try engine.heading() }
        engine.update(Sample(kind: .magnetometer, timestamp: 0.01, vector: Vector3(20, 0, -44)))
        #expect((try? engine.deviceMotion(in: .xMagneticNorthZVertical)) != nil)
        #expect(engine.status.isNorthReliable) // trusted calibration is reported high
    }

    @Test("without a magnetometer only the 6D frame exists; without a declination no true north")
    func availability() {
        var engine = MotionEngine()
        Self.hold(&engine, pose: Self.flat(heading: 0), magnetometer: false)
        #expect(engine.availableFrames == .xArbitraryZVertical)
        for frame in [AttitudeReferenceFrame.xArbitraryCorrectedZVertical, .xMagneticNorthZVertical, .xTrueNorthZVertical] {
            #expect(throws: DeviceMotionUnavailable.frameUnavailable(frame, reason: "the device has no magnetometer")) {
                try engine.deviceMotion(in: frame)
            }
        }
        #expect(throws: DeviceMotionUnavailable.frameUnavailable(.xMagneticNorthZVertical, reason: "the device has no magnetometer")) {
            try engine.heading()
        }
        engine.magnetometerPresent = true
        #expect(engine.availableFrames == [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
        #expect(throws: DeviceMotionUnavailable.frameUnavailable(.xTrueNorthZVertical, reason: "no declination: configure a location or a declination")) {
            try engine.deviceMotion(in: .xTrueNorthZVertical)
        }
        #expect(throws: DeviceMotionUnavailable.notAFrame([.xArbitraryZVertical, .xMagneticNorthZVertical])) {
            try engine.deviceMotion(in: [.xArbitraryZVertical, .xMagneticNorthZVertical])
        }
        // The engine never saw a field: the magnetic field is uncalibrated, and no calibration is asked for.
        #expect(engine.calibrationAccuracy == .uncalibrated)
    }

    @Test("top edge 30° east of magnetic north, declination 10° east: the four frames and headings agree")
    func framesOnCanonicalPose() throws {
        var engine = MotionEngine(configuration: Self.trusted(declination: 10))
        Self.hold(&engine, pose: Self.flat(heading: 30))
        let magnetic = try engine.deviceMotion(in: .xMagneticNorthZVertical)
        #expect(abs(magnetic.heading - 30) < 0.5)
        // Yaw 0 = +x north; the top edge at 30° puts +x at 120° clockwise = −120° yaw.
        #expect(abs(magnetic.attitude.yaw / Self.deg + 120) < 0.5)
        let trueNorth = try engine.deviceMotion(in: .xTrueNorthZVertical)
        #expect(abs(trueNorth.heading - 40) < 0.5)
        #expect(abs(trueNorth.attitude.yaw / Self.deg + 130) < 0.5)
        // The arbitrary frames start at yaw 0 and carry no heading.
        for frame in [AttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
            let motion = try engine.deviceMotion(in: frame, anchor: engine.anchor())
            #expect(abs(motion.attitude.yaw) < 1e-6)
            #expect(motion.heading == -1)
            #expect(abs(motion.gravity.z + 1) < 1e-3)
        }
        let heading = try engine.heading()
        #expect(abs(heading.magneticHeading - 30) < 0.5)
        #expect(abs(heading.trueHeading - 40) < 0.5)
        #expect(heading.headingAccuracy > 0)
        #expect(abs(try engine.heading(orientation: .landscapeLeft).magneticHeading - 120) < 0.5)
        #expect(abs(try engine.heading(orientation: .landscapeRight).magneticHeading - 300) < 0.5)
        #expect(abs(try engine.heading(orientation: .portraitUpsideDown).magneticHeading - 210) < 0.5)
        // Without a declination the true heading is invalid (negative), as Core Location's.
        var noDeclination = MotionEngine(configuration: Self.trusted())
        Self.hold(&noDeclination, pose: Self.flat(heading: 30))
        #expect(try noDeclination.heading().trueHeading == -1)
    }

    /// Canonical poses (device → north frame) with the gravity the device must read and the
    /// heading of its top edge (or, upright, of its back).
    static let canonicalPoses: [(name: String, pose: Quaternion, gravity: Vector3, heading: Double)] = {
        let x = Vector3(1, 0, 0), y = Vector3(0, 1, 0), z = Vector3(0, 0, 1)
        let topNorth = Quaternion(axis: z, angle: -.pi / 2)
        return [
            ("face up, top north", topNorth, Vector3(0, 0, -1), 0),
            ("face up, top east", Quaternion(axis: z, angle: -.pi), Vector3(0, 0, -1), 90),
            // Upright: the top-north pose tipped up about its x axis; the screen faces south, the back north.
            ("upright, back north", topNorth * Quaternion(axis: x, angle: .pi / 2), Vector3(0, -1, 0), 0),
            ("upside down, back south", topNorth * Quaternion(axis: x, angle: -.pi / 2), Vector3(0, 1, 0), 180),
            // On an edge the top points west; gravity reads +1 on the axis pointing down.
            ("on its right edge, top west", Quaternion(axis: y, angle: .pi / 2), Vector3(1, 0, 0), 270),
            ("on its left edge, top west", Quaternion(axis: y, angle: -.pi / 2), Vector3(-1, 0, 0), 270),
            ("face down, top north", topNorth * Quaternion(axis: y, angle: .pi), Vector3(0, 0, 1), 0),
        ]
    }()

    @Test("canonical poses in every frame: the attitude is the pose (rotated by the declination or the anchor), gravity and heading as expected",
          arguments: canonicalPoses.indices)
    func canonicalPosesInEveryFrame(index: Int) throws {
        let (name, pose, gravity, heading) = Self.canonicalPoses[index]
        var engine = MotionEngine(configuration: Self.trusted(declination: 7))
        Self.hold(&engine, pose: pose)
        let z = Vector3(0, 0, 1)
        let anchor = engine.anchor()
        let expected: [(AttitudeReferenceFrame, Quaternion)] = [
            (.xMagneticNorthZVertical, pose),
            (.xTrueNorthZVertical, Quaternion(axis: z, angle: -7 * Self.deg) * pose),
            (.xArbitraryZVertical, Quaternion(axis: z, angle: -Attitude(quaternion: pose).yaw) * pose),
            (.xArbitraryCorrectedZVertical, Quaternion(axis: z, angle: -Attitude(quaternion: pose).yaw) * pose),
        ]
        for (frame, truth) in expected {
            let motion = try engine.deviceMotion(in: frame, anchor: anchor)
            let error = 2 * acos(min(1, abs((truth.inverse * motion.attitude.quaternion).w))) / Self.deg
            #expect(error < 0.2, "\(name), \(frame): \(error)°")
            #expect(isClose(motion.gravity.vector, gravity, tolerance: 2e-3), "\(name), \(frame): \(motion.gravity)")
            switch frame {
            case .xMagneticNorthZVertical: #expect(abs((motion.heading - heading).remainder(dividingBy: 360)) < 0.2, "\(name)")
            case .xTrueNorthZVertical: #expect(abs((motion.heading - heading - 7).remainder(dividingBy: 360)) < 0.2, "\(name)")
            default: #expect(motion.heading == -1)
            }
        }
    }

    @Test("a turn of 90° counter-clockwise shows as +90° yaw in both arbitrary frames, anchored at the start")
    func arbitraryFramesFollowTurns() throws {
        var engine = MotionEngine(configuration: Self.trusted())
        Self.hold(&engine, pose: Self.flat(heading: 200))
        let anchor = engine.anchor()
        // Turn at 45 °/s about +z for 2 s, with a field consistent with the turn.
        var pose = Self.flat(heading: 200)
        for i in 1...200 {
            let t = 2 + Double(i) * 0.01
            let rate = Vector3(0, 0, 45 * Self.deg)
            pose = (pose * Quaternion(axis: rate, angle: rate.norm * 0.01)).normalized
            engine.update(Sample(kind: .gyroscope, timestamp: t, vector: rate))
            engine.update(Sample(kind: .accelerometer, timestamp: t, vector: pose.inverse.rotate(Vector3(0, 0, -1))))
            engine.update(Sample(kind: .magnetometer, timestamp: t, vector: pose.inverse.rotate(Self.earth)))
        }
        for frame in [AttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
            let yaw = try engine.deviceMotion(in: frame, anchor: anchor).attitude.yaw / Self.deg
            #expect(abs(yaw - 90) < 1, "\(frame): \(yaw)")
        }
        // Counter-clockwise seen from above: the heading fell from 200° to 110°.
        #expect(abs(try engine.heading().magneticHeading - 110) < 1)
    }

    @Test("online calibration learns a hard- and soft-iron distortion from tumbling; the heading is then right")
    func onlineCalibration() throws {
        var engine = MotionEngine()
        let softIron = Matrix3(rows: Vector3(1.15, 0.05, 0), Vector3(0.05, 0.9, 0.02), Vector3(0, 0.02, 1.05))
        let hardIron = Vector3(25, -40, 12)
        var random = SeededRandom(seed: 3)
        #expect(engine.status.calibrationNeeded == false) // no magnetometer seen yet
        var accuracies: [MagneticFieldCalibrationAccuracy] = []
        var last: TumblingMotion.Step?
        for step in TumblingMotion(seconds: 120).steps {
            last = step
            engine.update(Sample(kind: .gyroscope, timestamp: step.time, vector: step.rate + random.gaussianVector(sigma: 0.002)))
            engine.update(Sample(kind: .accelerometer, timestamp: step.time, vector: step.gravity + random.gaussianVector(sigma: 0.002)))
            let raw = softIron * step.field(Self.earth) + hardIron + random.gaussianVector(sigma: 0.3)
            if let event = engine.update(Sample(kind: .magnetometer, timestamp: step.time, vector: raw)),
               case .calibrationAccuracyChanged(_, let to) = event {
                accuracies.append(to)
            }
            if step.time < 0.02 { #expect(engine.status.calibrationNeeded) }
        }
        #expect(accuracies.last == .high, "\(accuracies)")
        #expect(!engine.status.calibrationNeeded)
        // What the engine learned is what a restart accepts (EngineStateStore refuses the implausible).
        #expect(engine.persistentState.implausibility() == nil, "\(engine.persistentState.implausibility() ?? "")")
        // At the end of the motion the heading follows the true one within 3°.
        let truth = Attitude(quaternion: try #require(last).attitude).heading
        let heading = try engine.heading()
        #expect(abs((heading.magneticHeading - truth).remainder(dividingBy: 360)) < 3, "\(heading) vs \(truth)")
        #expect(heading.headingAccuracy > 0 && heading.headingAccuracy < 10)
    }

    @Test("persistent state survives JSON and restores bias and calibration")
    func persistence() throws {
        var engine = MotionEngine()
        let bias = Vector3(0.01, -0.005, 0.008)
        for i in 0..<500 {
            let t = Double(i) * 0.01
            engine.update(Sample(kind: .gyroscope, timestamp: t, vector: bias))
            engine.update(Sample(kind: .accelerometer, timestamp: t, vector: Vector3(0, 0, -1)))
        }
        let saved = engine.persistentState
        let json = try JSONEncoder().encode(saved)
        let decoded = try JSONDecoder().decode(MotionEngine.PersistentState.self, from: json)
        #expect(decoded == saved)
        let restored = MotionEngine(restoring: decoded)
        #expect(isClose(restored.status.gyroscopeBias, bias, tolerance: 1e-3))
        #expect(restored.persistentState == saved)
    }

    @Test("a flipped gyroscope axis is found and, when configured, corrected: the attitude then tracks the truth")
    func axisCorrection() throws {
        var configuration = Self.trusted()
        configuration.applyAxisCorrection = true
        var engine = MotionEngine(configuration: configuration)
        let flip = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, 1))
        var events: [MotionEngine.Event] = []
        var last: TumblingMotion.Step?
        for step in TumblingMotion(seconds: 90).steps {
            engine.update(Sample(kind: .gyroscope, timestamp: step.time, vector: flip * step.rate))
            if let event = engine.update(Sample(kind: .accelerometer, timestamp: step.time, vector: step.gravity)) {
                events.append(event)
            }
            engine.update(Sample(kind: .magnetometer, timestamp: step.time, vector: step.field(Self.earth)))
            last = step
        }
        #expect(events.first == .axisCheckConcluded(.inconsistent(correction: flip), applied: true), "\(events)")
        #expect(events.contains(.axisCheckConcluded(.consistent, applied: false)), "the corrected gyroscope passes the re-check: \(events)")
        #expect(engine.status.gyroscopeCorrection == flip)
        #expect(engine.persistentState.implausibility(for: configuration) == nil)
        let truth = try #require(last).attitude
        let estimate = try engine.attitude(in: .xMagneticNorthZVertical)
        let error = 2 * acos(min(1, abs((truth.inverse * estimate).w))) / Self.deg
        #expect(error < 3, "attitude error \(error)°")
        // The correction is part of what a restart restores.
        #expect(MotionEngine(configuration: configuration, restoring: engine.persistentState).gyroscopeCorrection == flip)
        // …and only applied while the configuration asks for it.
        #expect(MotionEngine(configuration: Self.trusted(), restoring: engine.persistentState).gyroscopeCorrection == nil)
    }

    /// The angle between two attitudes (device → reference frame), degrees.
    static func error(_ estimate: Quaternion, _ truth: Quaternion) -> Double {
        let delta = estimate.inverse * truth
        return 2 * acos(min(1, abs(delta.w))) / deg
    }

    @Test("a 10 s gap in which the device turned 120° about the vertical and tilted 30°: right again within 2 s, bias and frames kept",
          arguments: [MotionEngine.MagnetometerCalibrationMode.online, .trusted])
    func gapRecovery(calibration: MotionEngine.MagnetometerCalibrationMode) throws {
        var configuration = MotionEngine.Configuration()
        configuration.magnetometerCalibration = calibration
        var engine = MotionEngine(configuration: configuration)
        var random = SeededRandom(seed: 7)
        let bias = Vector3(0.01, -0.015, 0.005)
        // Noisy samples of a still device in `pose`: 100 Hz gyroscope and accelerometer, 50 Hz magnetometer.
        func still(_ pose: Quaternion, from start: Double, seconds: Double, each: (Double) throws -> Void = { _ in }) rethrows {
            for i in 0..<Int(seconds * 100) {
                let t = start + Double(i) * 0.01
                engine.update(Sample(kind: .gyroscope, timestamp: t, vector: bias + random.gaussianVector(sigma: 0.002)))
                engine.update(Sample(kind: .accelerometer, timestamp: t, vector: pose.inverse.rotate(Vector3(0, 0, -1)) + random.gaussianVector(sigma: 0.004)))
                if i % 2 == 0 {
                    engine.update(Sample(kind: .magnetometer, timestamp: t, vector: pose.inverse.rotate(Self.earth) + random.gaussianVector(sigma: 0.3)))
                }
                try each(t)
            }
        }
        let before = Self.flat(heading: 30)
        try still(before, from: 0, seconds: 20)
        #expect(Self.error(try engine.deviceMotion(in: .xMagneticNorthZVertical).attitude.quaternion, before) < 2)
        let anchor = engine.anchor()
        let learned = engine.status.gyroscopeBias
        let corrected = try engine.deviceMotion(in: .xArbitraryCorrectedZVertical, anchor: anchor).attitude.quaternion

        // The laptop closed, moved and reopened: 10 s without samples.
        let after = Quaternion(axis: Vector3(0, 0, 1), angle: 120 * Self.deg) * before * Quaternion(axis: Vector3(1, 0, 0), angle: 30 * Self.deg)
        var worst = 0.0
        try still(after, from: 30, seconds: 30) { t in
            guard t >= 32 else { return }
            worst = max(worst, Self.error(try engine.deviceMotion(in: .xMagneticNorthZVertical).attitude.quaternion, after))
        }
        #expect(worst <= 5, "largest error from 2 s after the gap on: \(worst)°")
        #expect((engine.status.gyroscopeBias - bias).norm < 0.002, "the bias learned before the gap is kept: \(learned) → \(engine.status.gyroscopeBias)")
        // The corrected arbitrary frame keeps its zero: from it, the device turned as it really did.
        let turned = corrected.inverse * (try engine.deviceMotion(in: .xArbitraryCorrectedZVertical, anchor: anchor).attitude.quaternion)
        #expect(Self.error(turned, before.inverse * after) < 5)
    }

    @Test("a gyroscope unplugged for 10 s while the device turned: the attitude restarts when it is back, not 3 s of low-pass later")
    func gyroscopeGap() throws {
        var engine = MotionEngine(configuration: Self.trusted())
        let before = Self.flat(heading: 30)
        Self.hold(&engine, pose: before, seconds: 10)
        let after = Quaternion(axis: Vector3(0, 0, 1), angle: 120 * Self.deg) * before * Quaternion(axis: Vector3(1, 0, 0), angle: 30 * Self.deg)
        // The accelerometer and magnetometer go on in the new pose; the gyroscope is silent.
        for i in 1000..<2000 {
            let t = Double(i) * 0.01
            engine.update(Sample(kind: .accelerometer, timestamp: t, vector: after.inverse.rotate(Vector3(0, 0, -1))))
            engine.update(Sample(kind: .magnetometer, timestamp: t, vector: after.inverse.rotate(Self.earth)))
        }
        Self.hold(&engine, pose: after, from: 20, seconds: 0.05)
        #expect(Self.error(try engine.deviceMotion(in: .xMagneticNorthZVertical).attitude.quaternion, after) < 1)
    }

    @Test("non-finite samples change nothing")
    func nonFinite() throws {
        var engine = MotionEngine(configuration: Self.trusted())
        Self.hold(&engine, pose: Self.flat(heading: 10))
        let before = try engine.deviceMotion(in: .xMagneticNorthZVertical)
        for kind in SensorKind.allCases {
            engine.update(Sample(kind: kind, timestamp: 3, vector: Vector3(.nan, 0, 0)))
            engine.update(Sample(kind: kind, timestamp: .infinity, vector: Vector3(0, 0, -1)))
        }
        #expect(try engine.deviceMotion(in: .xMagneticNorthZVertical) == before)
    }

    @Test("readings the reader spaced out on purpose (the rest rate) are steps up to 1.5 × the interval; a longer gap still restarts")
    func readingInterval() {
        var engine = MotionEngine()
        func accelerometer(at t: Double) -> MotionEngine.Event? {
            engine.update(Sample(kind: .accelerometer, timestamp: t, vector: Vector3(0, -1, 0)))
        }
        for i in 0..<20 { _ = accelerometer(at: Double(i) * 0.02) }
        // Read every 2 s at rest: no restart, and the gap the log names is that allowance.
        engine.readingInterval = 2
        #expect(engine.estimator.maximumGap == 3)
        let restarts = (1...5).compactMap { accelerometer(at: 0.38 + Double($0) * 2) }
        #expect(restarts.isEmpty, "\(restarts)")
        // Longer than 1.5 × the interval: an outage (a suspend) even at the rest rate.
        #expect(accelerometer(at: 10.38 + 3.5) == .attitudeRestarted)
        // Back to every period: the usual 0.5 s.
        engine.readingInterval = 0
        #expect(engine.estimator.maximumGap == AttitudeEstimatorParameters().maximumGap)
        #expect(accelerometer(at: 13.88 + 2) == .attitudeRestarted)
    }
}

@Suite("HeadingFilter")
struct HeadingFilterTests {
    @Test("passes a heading only after the minimum change, across north too")
    func minimumChange() {
        var filter = HeadingFilter(minimumChange: 3)
        // 358 passes; 0.5 is only 2.5° away across north; 1.5 is 3.5° away; NaN never passes.
        let passed = [358, 0.5, 1.5, .nan].map { filter.admit($0) }
        #expect(passed == [true, false, true, false])
        var none = HeadingFilter(minimumChange: 0)
        #expect([10, 10, 10.01].map { none.admit($0) } == [true, true, true])
        #expect(HeadingFilter().minimumChange == 1) // Core Location's default
    }

    @Test("heading accuracy: invalid when uncalibrated, a floor per level, worse when disturbed")
    func accuracy() {
        #expect(HeadingAccuracy.degrees(calibration: .uncalibrated, relativeResidual: 0, dip: 1, disturbed: false) == -1)
        #expect(HeadingAccuracy.degrees(calibration: .high, relativeResidual: 0, dip: 1, disturbed: false) == 2)
        #expect(HeadingAccuracy.degrees(calibration: .low, relativeResidual: 0, dip: 1, disturbed: false) == 15)
        // 2 % residual at 60° dip: atan(0.04 / 0.5) ≈ 4.57°.
        let fit = HeadingAccuracy.degrees(calibration: .high, relativeResidual: 0.02, dip: Double.pi / 3, disturbed: false)
        #expect(abs(fit - 4.574) < 0.01)
        #expect(HeadingAccuracy.degrees(calibration: .high, relativeResidual: 0.02, dip: Double.pi / 3, disturbed: true) == fit + 10)
    }
}
