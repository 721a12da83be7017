import Glibc

/// Everything the daemon computes from raw samples, in one pure value: magnetometer
/// calibration, the attitude estimator, the axis self-check, and from them device motion in
/// any of the four reference frames and compass headings.
///
/// Feed samples in time order per sensor with ``update(_:)``; ask for ``deviceMotion(in:anchor:)``
/// and ``heading(orientation:)`` whenever needed. Warm-up: nothing is given until the estimator
/// has an accelerometer and a gyroscope sample (and, for the magnetic frames and headings, a
/// magnetometer sample); north-referenced output is flagged by its magnetic-field accuracy
/// (``MagneticFieldCalibrationAccuracy/uncalibrated`` until the calibration reaches low, see
/// ``MotionEngineStatus/isNorthReliable``). Frames needing a magnetometer or a declination are
/// unavailable without them. ``persistentState`` is what to save across restarts (gyroscope
/// bias, magnetometer calibration, applied axis correction).
public struct MotionEngine: Sendable {
    /// How the magnetometer is calibrated.
    public enum MagnetometerCalibrationMode: String, Sendable, Hashable, Codable {
        /// Hard- and soft-iron calibration learned online from ordinary motion.
        case online
        /// The readings are already calibrated (sensor hubs that calibrate in firmware,
        /// research datasets calibrated offline): used as they are and reported as high accuracy.
        case trusted
    }

    /// The engine's settings; defaults are what the daemon ships.
    public struct Configuration: Sendable, Hashable, Codable {
        public var estimator = AttitudeEstimatorParameters()
        public var magnetometerCalibration = MagnetometerCalibrationMode.online
        public var calibrator = MagnetometerCalibrator.Parameters()
        public var axisCheck = AxisSelfCheck.Parameters()
        /// Apply the axis self-check's correction to the gyroscope when it finds one (else it
        /// is only reported).
        public var applyAxisCorrection = false
        /// Read the accelerometer and the magnetometer at their own lags behind the gyroscope
        /// (learned online: ``AccelerometerLagEstimate``, ``MagnetometerCalibrator/lag``); off,
        /// their samples are taken as simultaneous with the gyroscope's.
        public var compensatesSensorLags = true
        /// Magnetic declination, degrees east (from a ``DeclinationSource``); nil makes true
        /// north unavailable.
        public var declination: Double?

        public init() {}
    }

    /// What survives a restart.
    public struct PersistentState: Sendable, Hashable, Codable {
        /// Gyroscope bias, rad/s, in the (corrected) device frame.
        public var gyroscopeBias: Vector3
        public var magnetometerCalibration: MagnetometerCalibrator.State
        /// The gyroscope axis correction in use, if one was applied.
        public var gyroscopeCorrection: Matrix3?
        /// The sensor lags learned (absent in a state saved before they were, or by an engine
        /// that does not compensate them).
        public var sensorLags: SensorLags?

        public init(gyroscopeBias: Vector3, magnetometerCalibration: MagnetometerCalibrator.State, gyroscopeCorrection: Matrix3?,
                    sensorLags: SensorLags? = nil) {
            self.gyroscopeBias = gyroscopeBias
            self.magnetometerCalibration = magnetometerCalibration
            self.gyroscopeCorrection = gyroscopeCorrection
            self.sensorLags = sensorLags
        }
    }

    /// How much later than the gyroscope the accelerometer's and the magnetometer's samples
    /// describe the motion, s: what the fusion reads them at (``Configuration/compensatesSensorLags``).
    public struct SensorLags: Sendable, Hashable, Codable {
        public var accelerometer: Double
        public var magnetometer: Double

        /// The lags believed, s: a sensor does not report before the gyroscope, and 50 ms is
        /// more than any IMU's filter. Both estimates stay within it; a saved lag outside it is
        /// implausible.
        public static let believable = 0.0...0.05

        public init(accelerometer: Double, magnetometer: Double) {
            (self.accelerometer, self.magnetometer) = (accelerometer, magnetometer)
        }

        /// How far these lags are from `other`: the larger of the two differences, s.
        public func distance(to other: SensorLags) -> Double {
            max(abs(accelerometer - other.accelerometer), abs(magnetometer - other.magnetometer))
        }
    }

    /// Something worth logging that happened on a sample.
    public enum Event: Sendable, Hashable {
        case calibrationAccuracyChanged(from: MagneticFieldCalibrationAccuracy, to: MagneticFieldCalibrationAccuracy)
        /// The axis self-check reached a verdict; `applied` when its correction is now in use.
        case axisCheckConcluded(AxisSelfCheck.Verdict, applied: Bool)
        case magneticDisturbance(began: Bool)
        /// A gap in the gyroscope or accelerometer samples longer than the estimator bridges
        /// (``AttitudeEstimatorParameters/maximumGap``: a suspend, a stopped daemon, an unplugged
        /// sensor) restarted the attitude from gravity; the heading follows from the next
        /// magnetometer sample that matches the magnetic reference.
        case attitudeRestarted
        /// The accelerometer reads `oneG` (G, as converted from its scale) at rest: an
        /// implausible magnitude (a wrong or missing scale), now taken as its 1 G
        /// (``GravityScale``), or 1 again. Reported when it becomes implausible or plausible
        /// again, not for every implausible value it then takes.
        case accelerometerScale(oneG: Double)
        /// The sensor lags the fusion reads at moved by ``MotionEngine/reportedLagStep`` or more
        /// since last reported (or since the start, or the state restored): a few times while
        /// they are learned, then only if the device's timing changes.
        case sensorLags(SensorLags)
    }

    public let configuration: Configuration
    public private(set) var estimator: AttitudeEstimator
    public private(set) var calibrator: MagnetometerCalibrator
    public private(set) var axisCheck: AxisSelfCheck
    /// Applied to every gyroscope sample before anything else (the self-check's correction).
    public private(set) var gyroscopeCorrection: Matrix3?
    /// Whether the device has a magnetometer; set by the owner from discovery, and set by the
    /// first magnetometer sample in any case.
    public var magnetometerPresent = false
    /// What the accelerometer reads for 1 G; every accelerometer reading is divided by it
    /// before the fusion, the axis check and the hinge see it.
    public private(set) var gravityScale = GravityScale()
    /// A convertible's hinge, from the display and base accelerometers (and both gyroscopes, when the base has one).
    public private(set) var hinge = HingeEstimator()
    /// The hinge angle the latest accelerometer sample gave, nil without a base accelerometer.
    public private(set) var hingeAngle: HingeAngle?
    /// How much later than the gyroscope the accelerometer's samples are.
    public private(set) var accelerometerLag = AccelerometerLagEstimate()

    private var hasGyroscope = false
    private var latestTime = 0.0
    private var acceleration = Vector3.zero
    private var field = Vector3.zero
    private var fieldSeen = false
    private var ownAnchor = FrameAnchor(arbitraryYaw: 0, correctedYaw: nil)
    private var disturbed = false
    /// The lags last reported (``Event/sensorLags(_:)``).
    private var reportedLags = SensorLags(accelerometer: 0, magnetometer: 0)
    /// How far a lag moves before it is reported again, s.
    public static let reportedLagStep = 0.001

    public init(configuration: Configuration = Configuration(), restoring saved: PersistentState? = nil) {
        self.configuration = configuration
        estimator = AttitudeEstimator(parameters: configuration.estimator)
        calibrator = MagnetometerCalibrator(parameters: configuration.calibrator)
        axisCheck = AxisSelfCheck(parameters: configuration.axisCheck)
        if let saved {
            var state = AttitudeEstimator.State()
            state.bias = saved.gyroscopeBias
            estimator.restore(state)
            calibrator = MagnetometerCalibrator(parameters: configuration.calibrator, restoring: saved.magnetometerCalibration)
            // A correction found earlier is only applied while the configuration asks for it.
            gyroscopeCorrection = configuration.applyAxisCorrection ? saved.gyroscopeCorrection : nil
            // Lags are the device's: read at them from the first sample, learning goes on.
            if let lags = saved.sensorLags {
                accelerometerLag = AccelerometerLagEstimate(assuming: lags.accelerometer)
                calibrator.assumeLag(lags.magnetometer)
                reportedLags = sensorLags
            }
        }
    }

    /// What to save so a restarted engine continues where this one stands.
    public var persistentState: PersistentState {
        PersistentState(gyroscopeBias: estimator.state.bias, magnetometerCalibration: calibrator.state,
                        gyroscopeCorrection: gyroscopeCorrection, sensorLags: compensatedLags)
    }

    /// The frames device motion can be given in now.
    public var availableFrames: AttitudeReferenceFrame {
        var frames: AttitudeReferenceFrame = .xArbitraryZVertical
        if magnetometerPresent {
            frames.formUnion([.xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
            if configuration.declination != nil { frames.insert(.xTrueNorthZVertical) }
        }
        return frames
    }

    /// Seconds between the readings the reader chose to take (the rest rate: a still
    /// accelerometer read once per wake-up), 0 when it reads every period; set by the owner as
    /// each sample comes, to the interval in force when it was read. Gaps up to 1.5 times it are
    /// steps, not outages (``AttitudeEstimator/maximumGap``).
    public var readingInterval: Double {
        get { estimator.readingInterval }
        set { estimator.readingInterval = newValue }
    }

    /// The same for a convertible's base accelerometer (``HingeEstimator/baseReadingInterval``).
    public var baseReadingInterval: Double {
        get { hinge.baseReadingInterval }
        set { hinge.baseReadingInterval = newValue }
    }

    /// The accuracy of the magnetic field (and so of the north frames and headings).
    public var calibrationAccuracy: MagneticFieldCalibrationAccuracy {
        guard fieldSeen else { return .uncalibrated }
        return configuration.magnetometerCalibration == .trusted ? .high : calibrator.accuracy
    }

    /// The flags a user needs to see why the engine does what it does.
    public var status: MotionEngineStatus {
        MotionEngineStatus(initialized: isReady, atRest: estimator.state.atRest,
                           magneticallyDisturbed: estimator.state.magneticallyDisturbed,
                           calibrationAccuracy: calibrationAccuracy,
                           calibrationNeeded: magnetometerPresent && configuration.magnetometerCalibration == .online
                               && calibrator.calibrationNeeded,
                           gyroscopeBias: estimator.state.bias, axisCheck: axisCheck.verdict,
                           gyroscopeCorrection: gyroscopeCorrection,
                           sensorLags: compensatedLags)
    }

    /// Feeds one sample; returns what changed that deserves a log line, if anything.
    @discardableResult
    public mutating func update(_ sample: Sample) -> Event? {
        let v = sample.vector, t = sample.timestamp
        // Light and proximity are not motion: the fusion never sees them.
        guard v.isFinite, t.isFinite, sample.kind.isMotion else { return nil }
        latestTime = max(latestTime, t)
        switch sample.kind {
        case .gyroscope:
            let rate = gyroscopeCorrection.map { $0 * v } ?? v
            hasGyroscope = true
            axisCheck.update(gyroscope: rate, at: t)
            estimator.update(gyroscope: rate, at: t)
            let unbiased = rate - estimator.state.bias
            // The calibrator's gyroscope evidence calibrates online and gives the magnetometer's lag.
            if configuration.magnetometerCalibration == .online || configuration.compensatesSensorLags { calibrator.update(rate: unbiased) }
            hinge.update(displayRotationRate: unbiased, at: t)
            return nil
        case .accelerometer:
            let wasPlausible = gravityScale.isPlausible
            let rescaled = gravityScale.update(v, at: t) && gravityScale.isPlausible != wasPlausible
            let a = v / gravityScale.oneG
            acceleration = a
            hingeAngle = hinge.update(display: a, at: t)
            let wasDecided = axisCheck.isDecided
            axisCheck.update(accelerometer: a, at: t)
            let wasInitialized = estimator.isInitialized
            if configuration.compensatesSensorLags, wasInitialized {
                accelerometerLag.update(acceleration: a, rate: estimator.state.rotationRate, attitude: estimator.state.gyroscopeQuaternion, at: t)
            }
            let restarted = estimator.update(accelerometer: readAtGyroscopeTime(a, lag: sensorLags.accelerometer), at: t)
            // The attitude the calibrator compares readings in jumped: the minute before is void.
            if restarted { calibrator.restartAttitude() }
            if !wasInitialized, estimator.isInitialized {
                ownAnchor.arbitraryYaw = Attitude(quaternion: estimator.attitude6D).yaw
            }
            if !wasDecided, axisCheck.isDecided { return concludeAxisCheck() }
            if rescaled { return .accelerometerScale(oneG: gravityScale.oneG) }
            return restarted ? .attitudeRestarted : lagsMoved()
        case .magnetometer:
            return updateMagnetometer(v, at: t)
        case .baseAccelerometer:
            hinge.update(base: v, at: t)
            return nil
        case .baseGyroscope:
            // Its bias is not estimated: the accelerometers correct what it drifts the angle.
            hinge.update(baseRotationRate: v, at: t)
            return nil
        case .light, .proximity:
            return nil
        }
    }

    private mutating func updateMagnetometer(_ raw: Vector3, at t: Double) -> Event? {
        magnetometerPresent = true
        fieldSeen = true
        var event: Event?
        let accuracyBefore = calibrator.accuracy
        if configuration.magnetometerCalibration == .online {
            let before = calibrator.calibration
            // A new calibration that turns the field noticeably invalidates the learned
            // magnetic reference: start the heading afresh instead of easing over 20 s.
            let attitude = estimator.isInitialized ? estimator.attitude6D : nil
            if calibrator.update(raw, at: t, attitude: attitude), calibrator.turn(from: before, including: raw) > 5 * .pi / 180 {
                estimator.resetMagneticReference()
            }
            if calibrator.accuracy != accuracyBefore {
                event = .calibrationAccuracyChanged(from: accuracyBefore, to: calibrator.accuracy)
            }
            field = calibrator.calibrated(raw)
        } else {
            if configuration.compensatesSensorLags { calibrator.observe(raw, at: t) }
            field = raw
        }
        let headingKnown = estimator.state.headingInitialized
        estimator.update(magnetometer: readAtGyroscopeTime(field, lag: sensorLags.magnetometer), at: t)
        if !headingKnown, estimator.state.headingInitialized {
            ownAnchor.correctedYaw = Attitude(quaternion: estimator.attitude9D).yaw
        }
        // One event per sample: a disturbance change coinciding with an accuracy change is
        // reported on the next magnetometer sample.
        if event == nil, estimator.state.magneticallyDisturbed != disturbed {
            disturbed = estimator.state.magneticallyDisturbed
            event = .magneticDisturbance(began: disturbed)
        }
        return event ?? lagsMoved()
    }

    /// The lags the fusion reads the accelerometer and the magnetometer at (both 0 when lags
    /// are not compensated).
    public var sensorLags: SensorLags { compensatedLags ?? SensorLags(accelerometer: 0, magnetometer: 0) }

    /// The lags learned and compensated; nil when lags are not compensated (what the saved state
    /// and the status carry).
    public var compensatedLags: SensorLags? {
        configuration.compensatesSensorLags ? SensorLags(accelerometer: accelerometerLag.lag, magnetometer: calibrator.lag) : nil
    }

    /// ``Event/sensorLags(_:)`` when a lag moved by ``reportedLagStep`` since last reported.
    private mutating func lagsMoved() -> Event? {
        let lags = sensorLags
        guard lags.distance(to: reportedLags) >= Self.reportedLagStep else { return nil }
        reportedLags = lags
        return .sensorLags(lags)
    }

    /// A vector constant in the world (gravity, the earth's field) read `lag` seconds late, as it
    /// is at the gyroscope's time: turned forward by the rotation over the lag, v − lag ω × v (the
    /// device frame sees such a vector turn at −ω).
    private func readAtGyroscopeTime(_ v: Vector3, lag: Double) -> Vector3 {
        v - estimator.state.rotationRate.cross(v) * lag
    }

    /// Records the self-check's verdict and, when configured and needed, applies its correction
    /// (the estimator restarts in the corrected frame; the check runs again to confirm).
    private mutating func concludeAxisCheck() -> Event {
        let verdict = axisCheck.verdict
        guard configuration.applyAxisCorrection, case .inconsistent(let correction) = verdict else {
            return .axisCheckConcluded(verdict, applied: false)
        }
        gyroscopeCorrection = correction * (gyroscopeCorrection ?? .identity)
        // Start afresh, bias included: a bias learned in motion from wrong axes is meaningless.
        estimator.restore(AttitudeEstimator.State())
        calibrator.restartAttitude()
        axisCheck.reset()
        return .axisCheckConcluded(verdict, applied: true)
    }

    /// Device motion can be given: the estimator is initialised, a gyroscope sample was seen,
    /// and no restart is pending. After a gap in the gyroscope samples (the sensors stopped while
    /// nobody listened, a suspend) the attitude waits for the next accelerometer sample to
    /// restart from gravity: until then nothing from before the gap is given as new.
    public var isReady: Bool { estimator.isInitialized && hasGyroscope && !estimator.state.gyroscopeGap }

    /// The zero of the arbitrary frames as of now: take it when a consumer starts updates.
    public func anchor() -> FrameAnchor {
        FrameAnchor(arbitraryYaw: Attitude(quaternion: estimator.attitude6D).yaw,
                    correctedYaw: estimator.state.headingInitialized ? Attitude(quaternion: estimator.attitude9D).yaw : nil)
    }

    /// The attitude quaternion in `frame` (device → reference), or why there is none.
    @inline(__always) // read per sample; a call copied the whole engine into a temporary
    public func attitude(in frame: AttitudeReferenceFrame, anchor: FrameAnchor? = nil) throws(DeviceMotionUnavailable) -> Quaternion {
        // Available frames are named ones, so a single available frame needs no look-up.
        guard frame.rawValue.nonzeroBitCount == 1, availableFrames.contains(frame) else {
            guard AttitudeReferenceFrame.named.contains(where: { $0.frame == frame }) else { throw .notAFrame(frame) }
            throw .frameUnavailable(frame, reason: magnetometerPresent
                ? "no declination: configure a location or a declination"
                : "the device has no magnetometer")
        }
        guard isReady else { throw .warmingUp }
        switch frame {
        case .xArbitraryZVertical:
            return estimator.attitude6D.turnedAboutVertical(by: -(anchor ?? ownAnchor).arbitraryYaw)
        default:
            guard estimator.state.headingInitialized else { throw .warmingUp }
            let q = estimator.attitude9D
            switch frame {
            case .xMagneticNorthZVertical:
                return q
            case .xTrueNorthZVertical:
                // Magnetic north lies `declination` east (clockwise) of true north.
                return q.turnedAboutVertical(by: -(configuration.declination ?? 0) * .pi / 180)
            default:
                return q.turnedAboutVertical(by: -(anchor?.correctedYaw ?? ownAnchor.correctedYaw ?? 0))
            }
        }
    }

    /// Device motion in `frame` at the latest sample.
    public func deviceMotion(in frame: AttitudeReferenceFrame, anchor: FrameAnchor? = nil) throws(DeviceMotionUnavailable) -> DeviceMotion {
        let q = try attitude(in: frame, anchor: anchor)
        return DeviceMotion(timestamp: latestTime, attitude: Attitude(quaternion: q),
                            rotationRate: RotationRate(estimator.state.rotationRate),
                            measuredAcceleration: Acceleration(acceleration),
                            magneticField: CalibratedMagneticField(field: MagneticField(field), accuracy: calibrationAccuracy),
                            referenceFrame: frame)
    }

    /// The compass heading of the `orientation` edge at the latest sample.
    public func heading(orientation: HeadingOrientation = .portrait) throws(DeviceMotionUnavailable) -> Heading {
        let magnetic = try Attitude(quaternion: attitude(in: .xMagneticNorthZVertical)).heading(of: orientation)
        let trueHeading = configuration.declination.map { ($0 + magnetic).truncatingRemainder(dividingBy: 360) }
            .map { $0 < 0 ? $0 + 360 : $0 } ?? -1
        return Heading(timestamp: latestTime, magneticHeading: magnetic, trueHeading: trueHeading,
                       headingAccuracy: headingAccuracy, field: MagneticField(field))
    }

    /// The likely largest heading error, degrees (−1 while uncalibrated); see ``MotionEngineStatus``.
    public var headingAccuracy: Double {
        HeadingAccuracy.degrees(calibration: calibrationAccuracy,
                                relativeResidual: configuration.magnetometerCalibration == .online ? calibrator.state.residual : 0,
                                dip: estimator.state.magneticDip, disturbed: estimator.state.magneticallyDisturbed)
    }
}
