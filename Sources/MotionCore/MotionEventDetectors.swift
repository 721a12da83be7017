/// Runs every event detector on the samples a ``MotionEngine`` has just taken: the orientation
/// detector on gravity, the shake detector on user acceleration, the slap detector on x, the tap
/// detector on the acceleration, and
/// gestures from orientation changes (face up/down) and the estimator's rest detection. With a gyroscope both come
/// from the fused device motion (fast, and immune to linear acceleration); without one from
/// ``AccelerationGravity`` (a low-pass of the acceleration). Feed it every sample after the
/// engine; detectors run on accelerometer samples.
public struct MotionEventDetectors: Sendable {
    public var orientation: OrientationDetector
    public var shake: ShakeDetector
    public var slap: SlapDetector
    public var tap: TapDetector
    private var atRest = false
    private var fallbackGravity = AccelerationGravity()
    /// User acceleration above this (G) counts as "accelerating hard" for orientation decisions.
    public var hardAcceleration = 0.5

    public init(orientation: OrientationDetector.Parameters = .init(), shake: ShakeDetector.Parameters = .init(),
                slap: SlapDetector.Parameters = .init(), tap: TapDetector.Parameters = .init()) {
        self.orientation = OrientationDetector(parameters: orientation)
        self.shake = ShakeDetector(parameters: shake)
        self.slap = SlapDetector(parameters: slap)
        self.tap = TapDetector(parameters: tap)
    }

    /// The events `sample` causes, given the engine that has already taken it.
    public mutating func update(_ sample: Sample, engine: MotionEngine) -> [MotionEvent] {
        guard sample.kind == .accelerometer, sample.vector.isFinite, sample.timestamp.isFinite else { return [] }
        let t = sample.timestamp
        let gravity: Vector3, user: Vector3, rate: Double, accelerating: Bool
        if let motion = try? engine.deviceMotion(in: .xArbitraryZVertical) {
            (gravity, user, rate) = (motion.gravity.vector, motion.userAcceleration.vector, motion.rotationRate.vector.norm)
            accelerating = user.norm > hardAcceleration
        } else {
            fallbackGravity.update(sample.vector, at: t)
            guard let g = fallbackGravity.gravity else { return [] }
            (gravity, user, rate, accelerating) = (g, sample.vector - g, 0, fallbackGravity.accelerating)
        }
        var events: [MotionEvent] = []
        if let change = orientation.update(gravity: gravity, at: t, accelerating: accelerating, rotationRate: rate) {
            events.append(.orientation(change, timestamp: t))
            if change == .faceUp || change == .faceDown { events.append(.gesture(change == .faceUp ? .faceUp : .faceDown, timestamp: t)) }
        }
        if let phase = shake.update(userAcceleration: user, at: t) {
            events.append(.shake(phase.phase, timestamp: phase.timestamp))
        }
        if let direction = slap.update(x: sample.vector.x, at: t) {
            events.append(.gesture(direction == .left ? .slapLeft : .slapRight, timestamp: t))
        }
        if let tapped = tap.update(acceleration: sample.vector, at: t) {
            events.append(.gesture(tapped.kind == .tap ? .tap : .doubleTap, timestamp: tapped.timestamp))
        }
        let rest = engine.status.atRest
        if rest != atRest {
            atRest = rest
            events.append(.gesture(rest ? .rest : .motion, timestamp: t))
        }
        return events
    }
}
