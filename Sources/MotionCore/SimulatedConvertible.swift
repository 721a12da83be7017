import Glibc

/// A simulated convertible for tests and the hinge benchmark: a scripted fold of the lid and
/// attitude of the base, read by a display and a base accelerometer (and gyroscope) with noise.
///
/// Frames as ``HingeEstimator`` expects them: the base's axes equal the display's with the lid
/// closed, x along the hinge; at hinge angle θ the display is the base turned by −θ about x.
/// `baseAttitude` rotates base-frame vectors into a Z-up world frame; the base lying keyboard
/// up on a table is a half turn about x (its z, out of its underside, points down).
/// Readings: accelerometers in G with the gravity-vector sign (what a face-up screen reads is
/// z ≈ −1), gyroscopes in rad/s. The sensors sit apart, as in a laptop — the base's 10 cm in
/// front of the hinge, the display's 15 cm above it — so turning and folding accelerate them
/// differently (lever arms), on top of the linear acceleration they share.
public struct SimulatedConvertible: Sendable {
    /// One step: turn (linearly, over `turn` seconds) to a hinge angle and base attitude, then
    /// hold them for `hold` seconds, optionally carried (wobbling and accelerating).
    public struct Step: Sendable {
        public var hinge: Double
        public var baseAttitude: Quaternion
        public var turn: Double
        public var hold: Double
        public var carried: Bool

        public init(hinge: Double, baseAttitude: Quaternion, turn: Double, hold: Double, carried: Bool = false) {
            self.hinge = hinge
            self.baseAttitude = baseAttitude
            self.turn = turn
            self.hold = hold
            self.carried = carried
        }
    }

    /// The truth at one instant.
    public struct State: Sendable {
        public var hinge: Double
        public var baseAttitude: Quaternion
        /// Common linear acceleration of both halves, world frame, G.
        public var acceleration: Vector3
    }

    /// One instant's readings.
    public struct Readings: Sendable {
        public var truth: State
        public var display: Vector3
        public var base: Vector3
        public var displayRate: Vector3
        public var baseRate: Vector3
    }

    /// The base lying keyboard up, the hinge away from the user.
    public static let onTable = Quaternion(axis: Vector3(1, 0, 0), angle: .pi)
    /// The machine standing on its side (hinge vertical), keyboard toward the user.
    public static let onItsSide = Quaternion(axis: Vector3(0, 1, 0), angle: .pi / 2) * onTable

    public let steps: [Step]
    public var accelerometerNoise: Double
    public var gyroscopeNoise: Double
    /// Peak wobble of a carried machine (degrees, about two axes) and its linear acceleration (G).
    public var carryWobble = 12.0
    public var carryAcceleration = 0.25
    private var random: SeededRandom

    public init(steps: [Step], accelerometerNoise: Double = 0.01, gyroscopeNoise: Double = 0.003, seed: UInt64 = 0x6869_6E67_65) {
        self.steps = steps
        self.accelerometerNoise = accelerometerNoise
        self.gyroscopeNoise = gyroscopeNoise
        self.random = SeededRandom(seed: seed)
    }

    /// Seconds the script runs.
    public var duration: Double { steps.reduce(0) { $0 + $1.turn + $1.hold } }

    /// The truth at `time` (the last step held beyond the end).
    public func state(at time: Double) -> State {
        var previous = (hinge: steps.first?.hinge ?? 0, attitude: steps.first?.baseAttitude ?? Self.onTable)
        var start = 0.0
        for step in steps {
            defer {
                previous = (step.hinge, step.baseAttitude)
                start += step.turn + step.hold
            }
            guard time < start + step.turn + step.hold else { continue }
            // Smoothstep: the turn starts and ends at rest, as a hand moves.
            let u = step.turn > 0 ? min(max((time - start) / step.turn, 0), 1) : 1
            let turned = u * u * (3 - 2 * u)
            var attitude = previous.attitude.slerp(to: step.baseAttitude, t: turned)
            var acceleration = Vector3.zero
            if step.carried, time >= start + step.turn {
                let t = time - start
                let wobble = carryWobble * .pi / 180
                attitude = (attitude * Quaternion(axis: Vector3(1, 0, 0), angle: wobble * sin(2 * .pi * 1.3 * t))
                    * Quaternion(axis: Vector3(0, 1, 0), angle: wobble * sin(2 * .pi * 0.9 * t + 1))).normalized
                acceleration = Vector3(sin(2 * .pi * 1.9 * t), cos(2 * .pi * 1.7 * t), sin(2 * .pi * 2.3 * t + 2)) * carryAcceleration
            }
            return State(hinge: previous.hinge + (step.hinge - previous.hinge) * turned, baseAttitude: attitude, acceleration: acceleration)
        }
        return State(hinge: previous.hinge, baseAttitude: previous.attitude, acceleration: .zero)
    }

    /// The display's attitude (display → world) in a state.
    static func displayAttitude(_ state: State) -> Quaternion {
        state.baseAttitude * Quaternion(axis: Vector3(1, 0, 0), angle: -state.hinge * .pi / 180)
    }

    /// The readings at `time`, with noise; rates and lever-arm accelerations from the script's
    /// change over a few milliseconds.
    public mutating func readings(at time: Double) -> Readings {
        let h = 0.005
        let (before, now, after) = (state(at: time - h), state(at: time), state(at: time + h))
        let display = Self.displayAttitude(now), base = now.baseAttitude
        // Each sensor's acceleration from its position, metres → G.
        func acceleration(_ position: (State) -> Vector3) -> Vector3 {
            (position(after) - position(now) * 2 + position(before)) / (h * h) / PhysicalConstants.standardGravity
        }
        let displayMotion = acceleration { Self.displayAttitude($0).rotate(Self.displaySensor) }
        let baseMotion = acceleration { $0.baseAttitude.rotate(Self.baseSensor) }
        let gravity = Vector3(0, 0, -1)
        func rate(_ a: Quaternion, _ b: Quaternion) -> Vector3 {
            let (axis, angle) = (a.inverse * b).normalized.axisAngle
            return axis * (angle / h)
        }
        return Readings(
            truth: now,
            display: display.inverse.rotate(gravity - now.acceleration - displayMotion) + random.gaussianVector(sigma: accelerometerNoise),
            base: base.inverse.rotate(gravity - now.acceleration - baseMotion) + random.gaussianVector(sigma: accelerometerNoise),
            displayRate: rate(display, Self.displayAttitude(after)) + random.gaussianVector(sigma: gyroscopeNoise),
            baseRate: rate(base, after.baseAttitude) + random.gaussianVector(sigma: gyroscopeNoise))
    }

    /// Where the sensors sit, metres from the hinge, in their own frames.
    static let displaySensor = Vector3(0, 0.15, 0)
    static let baseSensor = Vector3(0, 0.10, 0)
}

extension SimulatedConvertible {
    /// One display sample's worth of a run: the truth, the estimate and any posture change.
    public struct Frame: Sendable {
        public var time: Double
        public var truth: State
        public var angle: HingeAngle?
        public var posture: Posture?
    }

    /// A run of `steps` through a default estimator and posture detector: the machine (for the
    /// script's times) and the frames.
    public static func simulate(_ steps: [Step], interval: Double, gyroscopes: Bool, accelerometerNoise: Double = 0.01,
                                seed: UInt64 = 7) -> (machine: SimulatedConvertible, frames: [Frame]) {
        var machine = SimulatedConvertible(steps: steps, accelerometerNoise: accelerometerNoise, seed: seed)
        var estimator = HingeEstimator()
        var detector = PostureDetector()
        let frames = machine.run(interval: interval, gyroscopes: gyroscopes, estimator: &estimator, detector: &detector)
        return (machine, frames)
    }

    /// Runs the script through an estimator and a posture detector, the accelerometers (and
    /// the gyroscopes, when `gyroscopes`) sampled every `interval` seconds, the base's half an
    /// interval after the display's (sensors are not read together).
    public mutating func run(interval: Double, gyroscopes: Bool, estimator: inout HingeEstimator,
                             detector: inout PostureDetector) -> [Frame] {
        var frames: [Frame] = []
        var time = 0.0
        while time < duration {
            let display = readings(at: time)
            if gyroscopes { estimator.update(displayRotationRate: display.displayRate, at: time) }
            let angle = estimator.update(display: display.display, at: time)
            let posture = angle.flatMap { detector.update($0, displayGravity: display.display) }
            frames.append(Frame(time: time, truth: display.truth, angle: angle, posture: posture))
            let base = readings(at: time + interval / 2)
            estimator.update(base: base.base, at: time + interval / 2)
            if gyroscopes { estimator.update(baseRotationRate: base.baseRate, at: time + interval / 2) }
            time += interval
        }
        return frames
    }
}

extension SimulatedConvertible {
    /// The display held upright facing the user (a quarter turn about x from lying flat, screen up).
    public static let upright = Quaternion(axis: Vector3(1, 0, 0), angle: .pi / 2)

    /// The scripted scenarios the tests and the hinge benchmark share.
    public enum Scenario {
        /// A fold from closed to 360° and back, `turn` seconds per stage, holding each stop
        /// `hold` seconds: opened on a table to flat, lifted upright (the display facing the
        /// user), then the base folded behind the display — a stand at 270° (the base keyboard
        /// down), a tablet at 360°. Its first six steps are the way out.
        public static func fold(turn: Double = 2, hold: Double = 3) -> [Step] {
            // With the display held upright, the base at hinge angle θ is the display turned by θ.
            func behind(_ degrees: Double) -> Quaternion { upright * Quaternion(axis: Vector3(1, 0, 0), angle: degrees * .pi / 180) }
            let stops: [(Double, Quaternion)] = [(0, onTable), (100, onTable), (180, onTable), (180, behind(180)), (270, behind(270)), (360, behind(360))]
            let out = stops.map { Step(hinge: $0.0, baseAttitude: $0.1, turn: turn, hold: hold) }
            return out + out.reversed().dropFirst()
        }

        /// Open at 110° on a table, then stood on its side and folded back and forth there
        /// (to 340° and 20°), where the accelerometers cannot see the hinge.
        public static var foldedOnItsSide: [Step] {
            [Step(hinge: 110, baseAttitude: onTable, turn: 0, hold: 2),
             Step(hinge: 110, baseAttitude: onItsSide, turn: 2, hold: 1),
             Step(hinge: 340, baseAttitude: onItsSide, turn: 3, hold: 1),
             Step(hinge: 20, baseAttitude: onItsSide, turn: 3, hold: 1)]
        }

        /// Standing on its side, the lid still at `hinge` degrees: set down on its side, then
        /// leaned 25° and 40° back toward lying flat, `seconds` each — the hinge axis vertical
        /// or near it, where the accelerometers cannot or can hardly see the angle.
        public static func standingOnItsSide(hinge: Double, seconds: Double = 20) -> [Step] {
            // Lying first as it would: keyboard up when open, screen up (keyboard down) folded.
            let lying = hinge < 180 ? onTable : .identity
            let side = Quaternion(axis: Vector3(0, 1, 0), angle: .pi / 2) * lying
            let leaned = { (degrees: Double) in Quaternion(axis: Vector3(1, 0, 0), angle: degrees * .pi / 180) * side }
            return [Step(hinge: hinge, baseAttitude: lying, turn: 0, hold: 2),
                    Step(hinge: hinge, baseAttitude: side, turn: 2, hold: seconds),
                    Step(hinge: hinge, baseAttitude: leaned(25), turn: 1, hold: seconds),
                    Step(hinge: hinge, baseAttitude: leaned(40), turn: 1, hold: seconds)]
        }

        /// Open at 120°, then carried for `seconds` (wobbling and accelerating).
        public static func carried(seconds: Double) -> [Step] {
            [Step(hinge: 120, baseAttitude: onTable, turn: 0, hold: 2),
             Step(hinge: 120, baseAttitude: onTable, turn: 0, hold: seconds, carried: true)]
        }

        /// Arriving from `from` degrees, then swinging ±`amplitude` about `threshold` for
        /// about a minute (2.5 s a swing): below flat on a table, beyond it keyboard down with
        /// the display upright.
        public static func swinging(about threshold: Double, from: Double, amplitude: Double = 3) -> [Step] {
            let base = threshold < 180 ? onTable : .identity
            return [Step(hinge: from, baseAttitude: base, turn: 0, hold: 2)] + (0..<24).map { i in
                Step(hinge: threshold + (i % 2 == 0 ? amplitude : -amplitude), baseAttitude: base, turn: 2, hold: 0.5)
            }
        }
    }

    /// Whether `time` lies in a hold, at least `after` seconds after its turn ended.
    public func holding(at time: Double, after: Double) -> Bool {
        var start = 0.0
        for step in steps {
            let held = start + step.turn
            if time >= held + after, time < held + step.hold { return true }
            start = held + step.hold
        }
        return false
    }

    /// The times the turns end (the fold settles), one per step.
    public var settleTimes: [Double] {
        var start = 0.0
        return steps.map { step in
            defer { start += step.turn + step.hold }
            return start + step.turn
        }
    }
}

extension SimulatedConvertible {
    /// For each step of a run, how long after its turn ended the reported posture became the
    /// one it has at the end of the hold (0 when it already was): the posture latency.
    public func postureDelays(_ frames: [Frame]) -> [Double] {
        var current = Posture.unknown
        let reported = frames.map { frame -> (Double, Posture) in
            if let change = frame.posture { current = change }
            return (frame.time, current)
        }
        var delays: [Double] = []
        for (settle, step) in zip(settleTimes, steps) {
            let end = settle + step.hold
            guard let final = reported.last(where: { $0.0 < end })?.1 else { continue }
            // Already right when the turn ended: no wait.
            let atSettle = reported.last(where: { $0.0 <= settle })?.1
            if atSettle == final { delays.append(0); continue }
            if let reached = reported.first(where: { $0.0 > settle && $0.0 < end && $0.1 == final }) {
                delays.append(reached.0 - settle)
            } else {
                delays.append(.infinity)
            }
        }
        return delays
    }
}

extension SimulatedConvertible.Frame {
    /// Root mean square of the estimate's error over `frames`, degrees (frames without an
    /// estimate left out).
    public static func errorRMS(_ frames: some Sequence<Self>) -> Double {
        let errors = frames.compactMap { f in f.angle.map { $0.degrees - f.truth.hinge } }
        return (errors.reduce(0) { $0 + $1 * $1 } / Double(max(errors.count, 1))).squareRoot()
    }

    /// The largest change of the estimate from one frame to the next, degrees.
    public static func largestStep(_ frames: [Self]) -> Double {
        zip(frames, frames.dropFirst()).compactMap { a, b in
            a.angle.flatMap { x in b.angle.map { abs($0.degrees - x.degrees) } }
        }.max() ?? 0
    }
}
