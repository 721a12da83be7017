import Glibc

/// A scripted motion for the simulated IMU: a list of steps, each turning the device at a
/// constant rate into a pose and holding it, optionally shaking it. The script loops.
///
/// Poses are attitudes in the Core Motion sense: the quaternion rotates device-frame vectors
/// into the reference frame (X magnetic north, Y west, Z up).
public struct MotionScript: Sendable {
    /// One step of the script.
    public struct Step: Sendable {
        /// A name for the step, e.g. the orientation it shows (`portrait`, `shake`).
        public var name: String
        /// The pose reached at the end of the turn and held.
        public var pose: Quaternion
        /// Seconds spent turning from the previous pose into this one.
        public var turn: Double
        /// Seconds spent holding the pose (shaking, if `shake` is set).
        public var hold: Double
        /// A side-to-side shake along device x during the hold.
        public var shake: Shake?

        public init(name: String, pose: Quaternion, turn: Double, hold: Double, shake: Shake? = nil) {
            self.name = name
            self.pose = pose
            self.turn = turn
            self.hold = hold
            self.shake = shake
        }
    }

    /// A sinusoidal user acceleration along device x.
    public struct Shake: Sendable {
        /// Peak user acceleration in G.
        public var amplitude: Double
        /// Frequency in Hz.
        public var frequency: Double

        public init(amplitude: Double, frequency: Double) {
            self.amplitude = amplitude
            self.frequency = frequency
        }
    }

    /// The ground truth of the scripted motion at one instant.
    public struct State: Sendable {
        public var step: String
        public var attitude: Quaternion
        /// Body-frame angular velocity, rad/s.
        public var rotationRate: Vector3
        /// Device-frame user acceleration (without gravity), G.
        public var userAcceleration: Vector3
    }

    public var steps: [Step]

    public init(steps: [Step]) {
        precondition(!steps.isEmpty, "a motion script needs at least one step")
        self.steps = steps
    }

    /// Length of one pass through the script, in seconds.
    public var duration: Double { steps.reduce(0) { $0 + $1.turn + $1.hold } }

    /// Canonical poses. Upright portrait: device +y points up; landscapeLeft: +x up
    /// (home button on the right); landscapeRight: −x up.
    public enum Pose {
        public static let faceUp = Quaternion.identity
        public static let portrait = Quaternion(axis: Vector3(1, 0, 0), angle: .pi / 2)
        public static let portraitUpsideDown = portrait * Quaternion(axis: Vector3(0, 0, 1), angle: .pi)
        public static let landscapeLeft = portrait * Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2)
        public static let landscapeRight = portrait * Quaternion(axis: Vector3(0, 0, 1), angle: -.pi / 2)
        public static let faceDown = Quaternion(axis: Vector3(1, 0, 0), angle: .pi)
    }

    /// The default demo: rest, the four screen orientations, a shake, face up, face down, and
    /// back to face up so the loop is continuous.
    public static let standard = MotionScript(steps: [
        Step(name: "rest", pose: Pose.faceUp, turn: 0, hold: 2),
        Step(name: "portrait", pose: Pose.portrait, turn: 0.8, hold: 2),
        Step(name: "landscapeLeft", pose: Pose.landscapeLeft, turn: 0.8, hold: 2),
        Step(name: "portraitUpsideDown", pose: Pose.portraitUpsideDown, turn: 0.8, hold: 2),
        Step(name: "landscapeRight", pose: Pose.landscapeRight, turn: 0.8, hold: 2),
        Step(name: "portrait", pose: Pose.portrait, turn: 0.8, hold: 1),
        Step(name: "shake", pose: Pose.portrait, turn: 0, hold: 1.5, shake: Shake(amplitude: 2.0, frequency: 4)),
        Step(name: "portrait", pose: Pose.portrait, turn: 0, hold: 1),
        Step(name: "faceUp", pose: Pose.faceUp, turn: 0.8, hold: 2),
        Step(name: "faceDown", pose: Pose.faceDown, turn: 1.0, hold: 2),
        Step(name: "faceUp", pose: Pose.faceUp, turn: 1.0, hold: 0),
    ])

    /// The true motion at `time` seconds after the start (the script loops).
    public func state(at time: Double) -> State {
        var t = time.truncatingRemainder(dividingBy: duration)
        if t < 0 { t += duration }
        var previous = steps[steps.count - 1].pose
        for step in steps {
            if t < step.turn {
                let delta = (previous.inverse * step.pose).axisAngle
                let attitude = previous.slerp(to: step.pose, t: t / step.turn)
                return State(step: step.name, attitude: attitude,
                             rotationRate: delta.axis * (delta.angle / step.turn), userAcceleration: .zero)
            }
            t -= step.turn
            if t < step.hold {
                var user = Vector3.zero
                if let shake = step.shake {
                    user.x = shake.amplitude * sin(2 * .pi * shake.frequency * t)
                }
                return State(step: step.name, attitude: step.pose, rotationRate: .zero, userAcceleration: user)
            }
            t -= step.hold
            previous = step.pose
        }
        let last = steps[steps.count - 1]
        return State(step: last.name, attitude: last.pose, rotationRate: .zero, userAcceleration: .zero)
    }
}
