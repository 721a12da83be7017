/// Runs every event detector on the samples a ``MotionEngine`` has just taken: the orientation
/// detector on gravity, the shake detector on user acceleration, the slap detector on x, the tap
/// detector on the acceleration, the screen's tilt (``DeviceTilt``, reported on change) from the
/// orientation's gravity, and
/// gestures from orientation changes (face up/down) and the estimator's rest detection. With a gyroscope both come
/// from the fused device motion (fast, and immune to linear acceleration); without one from
/// ``AccelerationGravity`` (a low-pass of the acceleration). A convertible's posture comes from
/// the engine's hinge angle and the same gravity. Either way, readings that have lain
/// ``Stillness`` still for the orientation's `stillTime` are gravity itself: their mean, with no
/// settle wait. Accelerometer readings are taken in units of the engine's ``GravityScale`` (a
/// device whose driver scale is wrong is judged as one reading 1 G at rest). Feed it every
/// sample after the engine; detectors run on accelerometer samples.
public struct MotionEventDetectors: Sendable {
    public var orientation: OrientationDetector
    public var shake: ShakeDetector
    public var slap: SlapDetector
    public var tap: TapDetector
    public var posture: PostureDetector
    public let configuration: DetectorConfiguration
    private var fallbackGravity: AccelerationGravity
    private var stillness: Stillness
    private var atRest = false
    /// The engine's 1 G the readings were last divided by (``GravityScale``).
    private var oneG = 1.0
    /// The screen's tilt, reported on change (nil until the first gravity).
    public private(set) var tilt: DeviceTilt?

    public init(configuration: DetectorConfiguration = DetectorConfiguration()) {
        self.configuration = configuration
        orientation = OrientationDetector(parameters: configuration.orientation)
        shake = ShakeDetector(parameters: configuration.shake)
        slap = SlapDetector(parameters: configuration.slap)
        tap = TapDetector(parameters: configuration.tap)
        posture = PostureDetector(parameters: configuration.posture)
        stillness = Stillness(tolerance: configuration.orientation.stillTolerance)
        fallbackGravity = Self.fallbackGravity(configuration)
    }

    /// Gravity without a gyroscope, fresh, with the configured acceleration tolerance.
    private static func fallbackGravity(_ configuration: DetectorConfiguration) -> AccelerationGravity {
        var gravity = AccelerationGravity()
        gravity.accelerationTolerance = configuration.accelerationTolerance
        return gravity
    }

    /// The events `sample` causes, given the engine that has already taken it.
    public mutating func update(_ sample: Sample, engine: MotionEngine) -> [MotionEvent] {
        guard sample.kind == .accelerometer, sample.vector.isFinite, sample.timestamp.isFinite else { return [] }
        let t = sample.timestamp
        // Readings in units of the accelerometer's own 1 G: a wrong scale changes nothing.
        if engine.gravityScale.oneG != oneG {
            oneG = engine.gravityScale.oneG
            fallbackGravity = Self.fallbackGravity(configuration)
            stillness.reset()
        }
        let acceleration = sample.vector / oneG
        stillness.update(acceleration, at: t)
        let still = stillness.held(for: configuration.orientation.stillTime, readings: 3)
        var gravity: Vector3, user: Vector3, rate: Double, accelerating: Bool
        if let motion = try? engine.deviceMotion(in: .xArbitraryZVertical) {
            (gravity, user, rate) = (motion.gravity.vector, motion.userAcceleration.vector, motion.rotationRate.vector.norm)
            accelerating = user.norm > configuration.hardAcceleration
        } else {
            fallbackGravity.update(acceleration, at: t)
            guard let g = fallbackGravity.gravity else { return [] }
            (gravity, user, rate, accelerating) = (g, acceleration - g, 0, fallbackGravity.accelerating)
        }
        if still, let mean = stillness.mean {
            gravity = mean
            accelerating = abs(mean.norm - 1) > configuration.accelerationTolerance
        }
        var events: [MotionEvent] = []
        if let now = DeviceTilt(gravity: gravity), now != tilt {
            tilt = now
            events.append(.tilt(now, timestamp: t))
        }
        if let change = orientation.update(gravity: gravity, at: t, accelerating: accelerating, rotationRate: rate, still: still) {
            events.append(.orientation(change, timestamp: t))
            if change == .faceUp || change == .faceDown { events.append(.gesture(change == .faceUp ? .faceUp : .faceDown, timestamp: t)) }
        }
        if let phase = shake.update(userAcceleration: user, at: t) {
            events.append(.shake(phase.phase, timestamp: phase.timestamp))
        }
        if let direction = slap.update(x: acceleration.x, at: t) {
            events.append(.gesture(direction == .left ? .slapLeft : .slapRight, timestamp: t))
        }
        if let tapped = tap.update(acceleration: acceleration, at: t) {
            events.append(.gesture(tapped.kind == .tap ? .tap : .doubleTap, timestamp: tapped.timestamp))
        }
        if let angle = engine.hingeAngle, angle.timestamp == t, let change = posture.update(angle, displayGravity: gravity) {
            events.append(.posture(change, timestamp: t))
        }
        let rest = engine.estimator.state.atRest
        if rest != atRest {
            atRest = rest
            events.append(.gesture(rest ? .rest : .motion, timestamp: t))
        }
        return events
    }
}
