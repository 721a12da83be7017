import Glibc

/// Estimates the device attitude from gyroscope, accelerometer and magnetometer samples, in
/// the manner of VQF (Laidig & Seel, "VQF: Highly accurate IMU orientation estimation with bias
/// estimation and magnetic disturbance rejection", Information Fusion 91, 2023), implemented
/// from its published description:
///
/// - the gyroscope is integrated (strapdown) into `gyroscopeQuaternion`, device → an
///   almost-inertial frame;
/// - the specific force is rotated into that frame and low-passed there
///   (``AttitudeEstimatorParameters/accelerometerTau``), so short linear accelerations barely
///   move it; the rotation that makes it vertical corrects the inclination
///   (`inclinationQuaternion`), giving the 6D attitude;
/// - the magnetometer only sets a heading offset about the vertical (`heading`), so a magnetic
///   disturbance can never tilt the attitude; readings whose norm or dip angle differ from the
///   learned reference are rejected, and those that differ less count less;
/// - the gyroscope bias is learned while the device rests.
///
/// Time comes from sample timestamps only. Samples may arrive per sensor at their own rates;
/// non-finite samples are ignored; a gap longer than ``maximumGap`` (suspend, a stopped daemon,
/// an unplugged sensor) is not integrated across: the attitude
/// restarts from the next accelerometer sample (inclination at once) and the next undisturbed
/// magnetometer sample (heading), keeping the gyroscope bias and the magnetic reference.
/// Conventions: accelerometer in G with the gravity-vector sign, gyroscope rad/s, magnetometer
/// µT, all in the device frame. Outputs rotate device vectors into
/// a Z-up frame: 6D with X wherever the device's heading was at start, 9D with X magnetic
/// north and Y west.
public struct AttitudeEstimator: Sendable {
    /// Seconds between the readings the reader chose to take (the rest rate of a device lying
    /// still: one reading per wake-up), 0 when it reads every period. Not an outage: a gap up
    /// to 1.5 times it is a step (``maximumGap``).
    public var readingInterval = 0.0

    /// The longest gap between samples integrated across: ``AttitudeEstimatorParameters/maximumGap``,
    /// or 1.5 × ``readingInterval`` when that is longer; a longer one restarts the attitude.
    public var maximumGap: Double { max(parameters.maximumGap, 1.5 * readingInterval) }

    public var parameters: AttitudeEstimatorParameters {
        // The remembered gains follow from the time constants.
        didSet { (gyroscopeGains, accelerometerGains, magnetometerGains) = (.init(), .init(), .init()) }
    }
    public private(set) var state = State()
    /// Per sensor, what its sample interval implies under the parameters' time constants.
    private var gyroscopeGains = IntervalCache<(rest: Double, bias: Double)>()
    private var accelerometerGains = IntervalCache<(rest: Double, filter: ButterworthCoefficients)>()
    private var magnetometerGains = IntervalCache<(reference: Double, heading: Double)>()

    /// Everything the estimator learns, kept apart from the parameters so it can be saved,
    /// restored and reset.
    public struct State: Sendable, Hashable, Codable {
        public var gyroscopeQuaternion = Quaternion.identity
        public var inclinationQuaternion = Quaternion.identity
        /// Low-pass of the specific force in the almost-inertial frame, G.
        public var inertialAcceleration = ButterworthLowPass<Vector3>()
        /// The same low-pass applied to the transposed gyroscope rotation (its rows are the
        /// columns of device → inertial), so a correction computed from the filtered acceleration
        /// is mapped back to the device with a rotation of the same delay.
        public var inverseRotation = ButterworthLowPass<Matrix3>()
        /// Heading offset, radians: 9D = Rz(heading) ⊗ 6D.
        public var heading = 0.0
        public var headingInitialized = false
        /// The heading no longer holds (after a gap, or a new magnetometer calibration before any
        /// heading was known): the next undisturbed magnetometer sample sets it outright.
        public var headingStale = false
        /// After a new magnetometer calibration: the heading and the magnetic reference settle
        /// on the new field's mean for ``headingSettlingTime``. Absent: not settling.
        public var headingSettling: HeadingSettling?
        /// The gyroscope had a gap: the next accelerometer sample restarts the attitude.
        public var gyroscopeGap = false
        /// Gyroscope bias, rad/s.
        public var bias = Vector3.zero
        public var initialized = false
        public var lastGyroscope: Double?
        public var lastAccelerometer: Double?
        public var lastMagnetometer: Double?
        // Rest detection.
        public var restGyroscopeLowPass = Vector3.zero
        public var restAccelerationLowPass = Vector3.zero
        public var restSince: Double?
        public var atRest = false
        // Magnetic reference (norm µT, dip radians) and disturbance bookkeeping.
        public var magneticNorm = 0.0
        public var magneticDip = 0.0
        public var magneticReferenceKnown = false
        public var candidateSince: Double?
        public var magneticallyDisturbed = false
        /// The latest corrected rotation rate, rad/s.
        public var rotationRate = Vector3.zero
    }

    public init(parameters: AttitudeEstimatorParameters = AttitudeEstimatorParameters()) {
        self.parameters = parameters
    }

    /// Restores a saved state (e.g. a learned gyroscope bias after a restart).
    public mutating func restore(_ state: State) {
        self.state = state
    }

    /// Forgets everything learned except the gyroscope bias.
    public mutating func reset() {
        let bias = state.bias
        state = State()
        state.bias = bias
    }

    /// A heading settling on a new calibration's field: since when (nil: from the next sample),
    /// over how many samples, the heading held when the calibration changed (radians; nil once
    /// the readings disagree with it) and the readings' mean heading since (radians).
    public struct HeadingSettling: Sendable, Hashable, Codable {
        public var since: Double?
        public var samples = 0
        public var held: Double?
        public var readings = 0.0
    }
    /// After a new calibration the magnetic reference and the readings' heading follow the mean
    /// of the samples since, then a low-pass of ``headingSettlingTau``, for ``headingSettlingTime`` s.
    static let headingSettlingTau = 3.0
    static let headingSettlingTime = 9.0
    /// While settling, the held heading weighs as this many seconds of readings against the
    /// readings' mean, s: weight w / (w + time since the change).
    static let headingHeldWeight = 2.0
    /// A readings' mean further than this from the held heading drops it, radians (15°: well
    /// beyond a calibrated field's few degrees, well within a wrong calibration's tens).
    static let headingHeldGate = 15 * Double.pi / 180

    /// The magnetometer calibration changed, so the learned magnetic reference no longer applies:
    /// the reference and the heading settle on the new field (see ``HeadingSettling``), or, with
    /// no heading yet, the next sample sets both.
    public mutating func resetMagneticReference() {
        if state.headingInitialized {
            state.headingSettling = HeadingSettling(held: state.heading)
        } else {
            state.magneticReferenceKnown = false
            state.headingStale = true
        }
        state.candidateSince = nil
        state.magneticallyDisturbed = false
    }

    /// True once the attitude has been initialised from the accelerometer.
    public var isInitialized: Bool { state.initialized }

    /// The 6D attitude (no magnetometer): device → Z-up frame with an arbitrary X. The product of
    /// two unit quaternions, so unit up to rounding (not normalised again: it is computed per
    /// magnetometer sample and per output).
    public var attitude6D: Quaternion { state.inclinationQuaternion * state.gyroscopeQuaternion }

    /// The 9D attitude: device → X magnetic north, Y west, Z up (the 6D one until a heading is known).
    @inline(__always) // called from the engine, it copied the whole estimator into a temporary
    public var attitude9D: Quaternion {
        attitude6D.turnedAboutVertical(by: state.heading)
    }

    /// Integrates a gyroscope sample (rad/s).
    public mutating func update(gyroscope raw: Vector3, at time: Double) {
        guard raw.isFinite, time.isFinite else { return }
        let dt = state.lastGyroscope.map { time - $0 } ?? 0
        state.lastGyroscope = time
        // nil: the first sample or a gap, nothing to integrate or filter over.
        let gains = isStep(dt) ? gyroscopeGains.value(for: dt) { dt in
            (Self.gain(dt: dt, tau: parameters.restFilterTau), Self.gain(dt: dt, tau: parameters.restBiasTau))
        } : nil
        if dt > maximumGap { state.gyroscopeGap = true }
        updateRest(gyroscope: raw, at: time, gains: gains)
        let rate = raw - state.bias
        state.rotationRate = rate
        guard state.initialized, gains != nil else { return }
        let angle = rate.norm * dt
        if angle > 0 {
            state.gyroscopeQuaternion = (state.gyroscopeQuaternion * Quaternion(axis: rate, angle: angle)).normalized
        }
    }

    /// Corrects the inclination with an accelerometer sample (G, gravity-vector sign). Returns
    /// whether it restarted an initialised attitude after a gap.
    @discardableResult
    public mutating func update(accelerometer acceleration: Vector3, at time: Double) -> Bool {
        guard acceleration.isFinite, time.isFinite, acceleration.norm > 1e-3 else { return false }
        let force = -acceleration // specific force: points up at rest
        let dt = state.lastAccelerometer.map { time - $0 }
        state.lastAccelerometer = time
        let gains = dt.flatMap { dt in
            isStep(dt) ? accelerometerGains.value(for: dt) { dt in
                (Self.gain(dt: dt, tau: parameters.restFilterTau), ButterworthCoefficients(tau: parameters.accelerometerTau, dt: dt))
            } : nil
        }
        updateRest(acceleration: force, gain: gains?.rest ?? 1)
        // First sample, or after a gap of either sensor: start from what the accelerometer
        // says; the device may have turned meanwhile, so the heading is taken afresh too.
        if !state.initialized || (dt ?? .infinity) > maximumGap || state.gyroscopeGap {
            let restarted = state.initialized
            if restarted { state.headingStale = true }
            state.gyroscopeGap = false
            initialize(force)
            return restarted
        }
        guard let gains else { return false } // a repeated (or earlier) time
        let filtered = state.inertialAcceleration.step(state.gyroscopeQuaternion.rotate(force), gains.filter)
        // The rotation back (inertial → device, the transpose of device → inertial), low-passed
        // like the acceleration.
        let delayed = state.inverseRotation.step(state.gyroscopeQuaternion.matrix.transposed, gains.filter)
        // Rotate the filtered vector to vertical with the smallest turn.
        let v = state.inclinationQuaternion.rotate(filtered)
        guard v.norm > 1e-9 else { return false }
        let up = v / v.norm
        let axis = up.cross(Vector3(0, 0, 1))
        guard axis.norm > 1e-12 || up.z < 0 else { return false }
        state.inclinationQuaternion = (Self.turnToVertical(up) * state.inclinationQuaternion).normalized
        if parameters.motionBiasTau > 0, !state.atRest, axis.norm > 1e-12 {
            learnBiasInMotion(correction: axis / axis.norm * atan2(axis.norm, up.z), delayed: delayed)
        }
        return false
    }

    /// The smallest turn taking the unit vector `up` to +Z, unnormalised: the angle θ between
    /// them has cos θ = up.z and sin θ = |up × Z|, and (1 + cos θ, sin θ · unit axis) is the
    /// turn's quaternion (cos θ/2, sin θ/2 · unit axis) times 2 cos θ/2 (no trigonometry). Straight
    /// down has no unique axis: a half turn about X then.
    static func turnToVertical(_ up: Vector3) -> Quaternion {
        let axis = up.cross(Vector3(0, 0, 1))
        if axis.norm <= 1e-12 && up.z < 0 { return Quaternion(w: 0, x: 1, y: 0, z: 0) }
        return Quaternion(w: 1 + up.z, x: axis.x, y: axis.y, z: axis.z)
    }

    /// A residual bias b turns the integrated attitude by about R·b·dt; the inclination
    /// correction undoes the horizontal part of that. Seen from the device, the correction thus
    /// points along −b: an integral update nudges the bias by it (in motion only: at rest the
    /// rest estimate is better), clipped to the believable range. The correction comes from
    /// low-passed acceleration, so it is taken back to the device with the equally low-passed
    /// rotation (`delayed`: its transpose, inertial → device); the current rotation would be out
    /// of phase while the device turns.
    private mutating func learnBiasInMotion(correction: Vector3, delayed: Matrix3) {
        let inDevice = delayed * state.inclinationQuaternion.inverse.rotate(correction)
        var bias = state.bias - inDevice / parameters.motionBiasTau
        let clip = parameters.biasClip * .pi / 180
        if bias.norm > clip { bias = bias / bias.norm * clip }
        state.bias = bias
    }

    /// Corrects the heading with a magnetometer sample (µT), unless the field is disturbed.
    public mutating func update(magnetometer field: Vector3, at time: Double) {
        guard field.isFinite, time.isFinite, state.initialized, field.norm > 1e-6 else { return }
        let dt = state.lastMagnetometer.map { time - $0 } ?? 0
        state.lastMagnetometer = time
        let gains = isStep(dt) ? magnetometerGains.value(for: dt) { dt in
            (Self.gain(dt: dt, tau: parameters.magneticReferenceTau), Self.gain(dt: dt, tau: parameters.magnetometerTau))
        } : nil
        let inertial = attitude6D.rotate(field)
        let horizontal = (inertial.x * inertial.x + inertial.y * inertial.y).squareRoot()
        let norm = inertial.norm
        let dip = atan2(-inertial.z, horizontal)
        guard horizontal > 1e-6 else { return }

        // Settling on a new calibration: the reference norm and dip and the readings' heading
        // follow the mean of every sample since the calibration changed, then a low-pass of a
        // few seconds, disturbed or not. Not a reference from one sample and then a gate: a first
        // reading 16° off the usual dip (taken mid-turn) was seen to pass only the readings that
        // agreed with it, pulling the heading 45° off for a minute.
        if var settling = state.headingSettling, state.magneticReferenceKnown {
            let since = settling.since ?? time
            settling.since = since
            settling.samples += 1
            let k = max(1 / Double(settling.samples), isStep(dt) ? Self.gain(dt: dt, tau: Self.headingSettlingTau) : 0)
            state.magneticNorm += (norm - state.magneticNorm) * k
            state.magneticDip += (dip - state.magneticDip) * k
            settling.readings = Self.wrapped(settling.readings + Self.wrapped(-atan2(inertial.y, inertial.x) - settling.readings) * k)
            // The heading held until now counts as headingHeldWeight seconds of readings, as
            // long as their mean agrees with it: a gyroscope-held heading is smoother than the
            // first seconds of a magnet-bent field (BROAD 34 read 5–9° rms per sample with the
            // best constant calibration; taking the first reading put its heading 5.6° off for
            // half a second). A mean further off means the held heading was the wrong one.
            if let held = settling.held, abs(Self.wrapped(held - settling.readings)) > Self.headingHeldGate {
                settling.held = nil
            }
            let heldWeight = settling.held == nil ? 0 : Self.headingHeldWeight / (Self.headingHeldWeight + time - since)
            state.heading = Self.wrapped(settling.readings + Self.wrapped((settling.held ?? 0) - settling.readings) * heldWeight)
            state.headingSettling = time - since < Self.headingSettlingTime ? settling : nil
            state.candidateSince = nil
            state.magneticallyDisturbed = false
            return
        }
        // Disturbance: compare with the learned norm and dip.
        if !state.magneticReferenceKnown {
            (state.magneticNorm, state.magneticDip, state.magneticReferenceKnown) = (norm, dip, true)
        }
        let normDeviation = abs(norm - state.magneticNorm) / state.magneticNorm
        let dipDeviation = abs(dip - state.magneticDip) * 180 / .pi
        let disturbed = normDeviation > parameters.magneticNormThreshold || dipDeviation > parameters.magneticDipThreshold
        if disturbed {
            // A steady new field is accepted after a while (e.g. the device moved to another room).
            let since = state.candidateSince ?? time
            state.candidateSince = since
            if time - since >= parameters.magneticNewFieldTime {
                (state.magneticNorm, state.magneticDip) = (norm, dip)
                state.candidateSince = nil
            }
            state.magneticallyDisturbed = true
            return
        }
        state.candidateSince = nil
        state.magneticallyDisturbed = false
        if let k = gains?.reference {
            state.magneticNorm += (norm - state.magneticNorm) * k
            state.magneticDip += (dip - state.magneticDip) * k
        }

        // The heading that turns the field's horizontal part onto +X (north).
        let measured = -atan2(inertial.y, inertial.x)
        if !state.headingInitialized || state.headingStale {
            state.heading = measured
            state.headingInitialized = true
            state.headingStale = false
            return
        }
        guard let k = gains?.heading else { return }
        let error = Self.wrapped(measured - state.heading)
        state.heading = Self.wrapped(state.heading + error * k * agreement(normDeviation: normDeviation, dipDeviation: dipDeviation))
    }

    /// How much an undisturbed reading's heading counts, 0…1: exp(−(Δnorm/w)² − (Δdip/w)²) with
    /// ``AttitudeEstimatorParameters/magneticNormWidth`` and ``AttitudeEstimatorParameters/magneticDipWidth``
    /// (a width of 0 leaves that deviation out). A field bent by a magnet nearby or a wrong
    /// calibration changes its norm and dip with its direction, so the readings that agree with
    /// the reference are the ones whose heading is most likely right; weighing the rest down
    /// lets the heading follow the gyroscope's drift quickly where the field is clean, and
    /// fades continuously into the outright rejection at the thresholds (weight e⁻⁶ there).
    private func agreement(normDeviation: Double, dipDeviation: Double) -> Double {
        let norm = parameters.magneticNormWidth > 0 ? normDeviation / parameters.magneticNormWidth : 0
        let dip = parameters.magneticDipWidth > 0 ? dipDeviation / parameters.magneticDipWidth : 0
        return exp(-(norm * norm + dip * dip))
    }

    /// Feeds one sample of any kind (light, proximity and a convertible's base sensors are ignored).
    public mutating func update(_ sample: Sample) {
        switch sample.kind {
        case .gyroscope: update(gyroscope: sample.vector, at: sample.timestamp)
        case .accelerometer: update(accelerometer: sample.vector, at: sample.timestamp)
        case .magnetometer: update(magnetometer: sample.vector, at: sample.timestamp)
        case .light, .proximity, .baseAccelerometer, .baseGyroscope: break
        }
    }

    // MARK: - Internals

    /// First-order low-pass gain for a step of `dt` with time constant `tau`.
    static func gain(dt: Double, tau: Double) -> Double { tau > 0 ? 1 - exp(-dt / tau) : 1 }

    /// Whether a sensor's samples `dt` apart are one step of its filters (not the first sample,
    /// a repeated time or a gap).
    private func isStep(_ dt: Double) -> Bool { dt > 0 && dt <= maximumGap }

    /// `remainder(angle, 2π)`: the angle in [−π, π]. Headings and their differences stay within
    /// ±3π, where subtracting 2π once gives exactly the same (Sterbenz: the difference of doubles
    /// within a factor of two is exact), without the library call.
    static func wrapped(_ angle: Double) -> Double {
        let magnitude = angle.magnitude
        if magnitude <= .pi { return angle }
        guard magnitude < 3 * .pi else { return remainder(angle, 2 * .pi) }
        let reduced = magnitude - 2 * .pi
        return angle < 0 ? -reduced : reduced // −(+0) keeps remainder's sign of zero at −2π
    }

    /// Starts (or restarts after a gap) with the attitude the specific force implies, keeping
    /// the 6D heading the gyroscope had.
    private mutating func initialize(_ force: Vector3) {
        let up = force / force.norm
        let current = state.initialized ? attitude6D : .identity
        let seenUp = current.rotate(up)
        state.gyroscopeQuaternion = (Self.turnToVertical(seenUp).normalized * current).normalized
        state.inclinationQuaternion = .identity
        state.inertialAcceleration.reset(to: state.gyroscopeQuaternion.rotate(force), tau: parameters.accelerometerTau)
        state.inverseRotation.reset(to: state.gyroscopeQuaternion.matrix.transposed, tau: parameters.accelerometerTau)
        state.initialized = true
    }

    /// Rest detection, gyroscope side: the rate stays near its low-pass, and that low-pass is a
    /// believable bias. After `restMinimumTime` of both, the bias follows the low-pass. `gains`
    /// are this step's (nil: no step, the low-pass takes the sample as it is).
    private mutating func updateRest(gyroscope: Vector3, at time: Double, gains: (rest: Double, bias: Double)?) {
        let p = parameters
        let degrees = 180 / Double.pi
        let k = gains?.rest ?? 1
        state.restGyroscopeLowPass = state.restGyroscopeLowPass + (gyroscope - state.restGyroscopeLowPass) * k
        let still = (gyroscope - state.restGyroscopeLowPass).norm * degrees < p.restGyroscopeThreshold
            && state.restGyroscopeLowPass.norm * degrees < p.biasClip
        guard still else {
            leaveRest()
            return
        }
        let since = state.restSince ?? time
        state.restSince = since
        guard time - since >= p.restMinimumTime else { return }
        state.atRest = true
        if let k = gains?.bias {
            state.bias = state.bias + (state.restGyroscopeLowPass - state.bias) * k
        }
    }

    /// Rest detection, accelerometer side: any jolt away from the low-pass (of this step's `gain`)
    /// ends rest.
    private mutating func updateRest(acceleration: Vector3, gain: Double) {
        state.restAccelerationLowPass = state.restAccelerationLowPass + (acceleration - state.restAccelerationLowPass) * gain
        if (acceleration - state.restAccelerationLowPass).norm * PhysicalConstants.standardGravity > parameters.restAccelerometerThreshold {
            leaveRest()
        }
    }

    private mutating func leaveRest() {
        state.restSince = nil
        state.atRest = false
    }
}
