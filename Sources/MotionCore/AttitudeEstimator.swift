import Foundation

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
///   learned reference are rejected;
/// - the gyroscope bias is learned while the device rests.
///
/// Time comes from sample timestamps only. Samples may arrive per sensor at their own rates;
/// non-finite samples are ignored; a gap longer than ``AttitudeEstimatorParameters/maximumGap``
/// is not integrated across. Conventions: accelerometer in G with the gravity-vector sign,
/// gyroscope rad/s, magnetometer µT, all in the device frame. Outputs rotate device vectors into
/// a Z-up frame: 6D with X wherever the device's heading was at start, 9D with X magnetic
/// north and Y west.
public struct AttitudeEstimator: Sendable {
    public var parameters: AttitudeEstimatorParameters
    public private(set) var state = State()

    /// Everything the estimator learns, kept apart from the parameters so it can be saved,
    /// restored and reset.
    public struct State: Sendable, Hashable, Codable {
        public var gyroscopeQuaternion = Quaternion.identity
        public var inclinationQuaternion = Quaternion.identity
        /// Low-pass of the specific force in the almost-inertial frame, G.
        public var inertialAcceleration = ButterworthLowPass(tau: AttitudeEstimatorParameters().accelerometerTau)
        /// The same low-pass applied to the columns of the gyroscope rotation (device → inertial),
        /// so a correction computed from the filtered acceleration is mapped back to the device
        /// with a rotation of the same delay.
        public var rotationColumns = [ButterworthLowPass](repeating: ButterworthLowPass(tau: AttitudeEstimatorParameters().accelerometerTau), count: 3)
        /// Heading offset, radians: 9D = Rz(heading) ⊗ 6D.
        public var heading = 0.0
        public var headingInitialized = false
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

    /// Forgets the magnetic reference and heading, so the next magnetometer sample sets them
    /// afresh (the magnetometer calibration changed: the old reference no longer applies).
    public mutating func resetMagneticReference() {
        state.magneticReferenceKnown = false
        state.headingInitialized = false
        state.candidateSince = nil
        state.magneticallyDisturbed = false
    }

    /// True once the attitude has been initialised from the accelerometer.
    public var isInitialized: Bool { state.initialized }

    /// The 6D attitude (no magnetometer): device → Z-up frame with an arbitrary X.
    public var attitude6D: Quaternion { (state.inclinationQuaternion * state.gyroscopeQuaternion).normalized }

    /// The 9D attitude: device → X magnetic north, Y west, Z up (the 6D one until a heading is known).
    public var attitude9D: Quaternion {
        (Quaternion(axis: Vector3(0, 0, 1), angle: state.heading) * attitude6D).normalized
    }

    /// Integrates a gyroscope sample (rad/s).
    public mutating func update(gyroscope raw: Vector3, at time: Double) {
        guard raw.isFinite, time.isFinite else { return }
        defer { state.lastGyroscope = time }
        updateRest(gyroscope: raw, at: time)
        let rate = raw - state.bias
        state.rotationRate = rate
        guard state.initialized, let last = state.lastGyroscope else { return }
        let dt = time - last
        guard dt > 0, dt <= parameters.maximumGap else { return }
        let angle = rate.norm * dt
        if angle > 0 {
            state.gyroscopeQuaternion = (state.gyroscopeQuaternion * Quaternion(axis: rate, angle: angle)).normalized
        }
    }

    /// Corrects the inclination with an accelerometer sample (G, gravity-vector sign).
    public mutating func update(accelerometer acceleration: Vector3, at time: Double) {
        guard acceleration.isFinite, time.isFinite, acceleration.norm > 1e-3 else { return }
        let force = -acceleration // specific force: points up at rest
        updateRest(acceleration: force, at: time)
        let dt = state.lastAccelerometer.map { time - $0 }
        state.lastAccelerometer = time
        // First sample, or after a gap: start from what the accelerometer says.
        if !state.initialized || (dt ?? .infinity) > parameters.maximumGap {
            initialize(force)
            return
        }
        guard let dt, dt > 0 else { return }
        state.inertialAcceleration.tau = parameters.accelerometerTau
        let filtered = state.inertialAcceleration.step(state.gyroscopeQuaternion.rotate(force), dt: dt)
        // Columns of device → inertial (rows of its transpose), low-passed like the acceleration.
        let rotation = state.gyroscopeQuaternion.matrix.transposed
        for index in 0..<3 { state.rotationColumns[index].tau = parameters.accelerometerTau }
        let delayed = Matrix3(rows: state.rotationColumns[0].step(rotation.row0, dt: dt),
                              state.rotationColumns[1].step(rotation.row1, dt: dt),
                              state.rotationColumns[2].step(rotation.row2, dt: dt))
        // Rotate the filtered vector to vertical with the smallest turn.
        let v = state.inclinationQuaternion.rotate(filtered)
        guard v.norm > 1e-9 else { return }
        let up = v / v.norm
        let axis = up.cross(Vector3(0, 0, 1))
        let angle = atan2(axis.norm, up.z)
        if axis.norm > 1e-12 {
            state.inclinationQuaternion = (Quaternion(axis: axis, angle: angle) * state.inclinationQuaternion).normalized
            learnBiasInMotion(correction: axis / axis.norm * angle, delayed: delayed)
        }
    }

    /// A residual bias b turns the integrated attitude by about R·b·dt; the inclination
    /// correction undoes the horizontal part of that. Seen from the device, the correction thus
    /// points along −b: an integral update nudges the bias by it (not at rest, where the rest
    /// estimate is better), clipped to the believable range. The correction comes from low-passed
    /// acceleration, so it is taken back to the device with the equally low-passed rotation
    /// (`delayed`: its transpose, inertial → device); the current rotation would be out of phase
    /// while the device turns.
    private mutating func learnBiasInMotion(correction: Vector3, delayed: Matrix3) {
        guard parameters.motionBiasTau > 0, !state.atRest else { return }
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
        let inertial = attitude6D.rotate(field)
        let horizontal = (inertial.x * inertial.x + inertial.y * inertial.y).squareRoot()
        let norm = inertial.norm
        let dip = atan2(-inertial.z, horizontal)
        guard horizontal > 1e-6 else { return }

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
        if dt > 0, dt <= parameters.maximumGap {
            let k = Self.gain(dt: dt, tau: parameters.magneticReferenceTau)
            state.magneticNorm += (norm - state.magneticNorm) * k
            state.magneticDip += (dip - state.magneticDip) * k
        }

        // The heading that turns the field's horizontal part onto +X (north).
        let measured = -atan2(inertial.y, inertial.x)
        if !state.headingInitialized {
            state.heading = measured
            state.headingInitialized = true
            return
        }
        guard dt > 0, dt <= parameters.maximumGap else { return }
        let error = remainder(measured - state.heading, 2 * .pi)
        state.heading = remainder(state.heading + error * Self.gain(dt: dt, tau: parameters.magnetometerTau), 2 * .pi)
    }

    /// Feeds one sample of any kind.
    public mutating func update(_ sample: Sample) {
        switch sample.kind {
        case .gyroscope: update(gyroscope: sample.vector, at: sample.timestamp)
        case .accelerometer: update(accelerometer: sample.vector, at: sample.timestamp)
        case .magnetometer: update(magnetometer: sample.vector, at: sample.timestamp)
        }
    }

    // MARK: - Internals

    /// First-order low-pass gain for a step of `dt` with time constant `tau`.
    static func gain(dt: Double, tau: Double) -> Double { tau > 0 ? 1 - exp(-dt / tau) : 1 }

    /// Starts (or restarts after a gap) with the attitude the specific force implies, keeping
    /// the 6D heading the gyroscope had.
    private mutating func initialize(_ force: Vector3) {
        let up = force / force.norm
        let current = state.initialized ? attitude6D : .identity
        let seenUp = current.rotate(up)
        let axis = seenUp.cross(Vector3(0, 0, 1))
        let tilt = axis.norm > 1e-12 ? Quaternion(axis: axis, angle: atan2(axis.norm, seenUp.z)) : .identity
        state.gyroscopeQuaternion = (tilt * current).normalized
        state.inclinationQuaternion = .identity
        state.inertialAcceleration.tau = parameters.accelerometerTau
        state.inertialAcceleration.reset(to: state.gyroscopeQuaternion.rotate(force))
        let columns = state.gyroscopeQuaternion.matrix.transposed
        for (index, column) in [columns.row0, columns.row1, columns.row2].enumerated() {
            state.rotationColumns[index].tau = parameters.accelerometerTau
            state.rotationColumns[index].reset(to: column)
        }
        state.initialized = true
    }

    /// Rest detection, gyroscope side: the rate stays near its low-pass, and that low-pass is a
    /// believable bias. After `restMinimumTime` of both, the bias follows the low-pass.
    private mutating func updateRest(gyroscope: Vector3, at time: Double) {
        let p = parameters
        let degrees = 180 / Double.pi
        let dt = state.lastGyroscope.map { time - $0 } ?? 0
        let stepped = dt > 0 && dt <= p.maximumGap
        let k = stepped ? Self.gain(dt: dt, tau: p.restFilterTau) : 1
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
        if stepped {
            state.bias = state.bias + (state.restGyroscopeLowPass - state.bias) * Self.gain(dt: dt, tau: p.restBiasTau)
        }
    }

    /// Rest detection, accelerometer side: any jolt away from the low-pass ends rest.
    private mutating func updateRest(acceleration: Vector3, at time: Double) {
        let p = parameters
        let dt = state.lastAccelerometer.map { time - $0 } ?? 0
        let k = dt > 0 && dt <= p.maximumGap ? Self.gain(dt: dt, tau: p.restFilterTau) : 1
        state.restAccelerationLowPass = state.restAccelerationLowPass + (acceleration - state.restAccelerationLowPass) * k
        if (acceleration - state.restAccelerationLowPass).norm * PhysicalConstants.standardGravity > p.restAccelerometerThreshold {
            leaveRest()
        }
    }

    private mutating func leaveRest() {
        state.restSince = nil
        state.atRest = false
    }
}
