import MotionCore

extension ServerMessage {
    /// The message as a line for people (`motiond --print-samples` without `--json`,
    /// `motionctl monitor`): samples with their units, device motion as Euler angles in
    /// degrees, events by name, availability as a comment line; nil for replies and hello.
    public var text: String? {
        switch self {
        case .sample(let sample) where !sample.kind.isMotion:
            return "\(fixed(sample.timestamp, 6, width: 14))  \(sample.kind.rawValue.padding(to: 13)) \(fixed(sample.vector.x, 1, width: 9)) \(sample.kind.unit)"
        case .proximity(let proximity):
            return "\(fixed(proximity.timestamp, 6, width: 14))  proximity     \(proximity.near ? "near" : "far") (\(fixed(proximity.level, 2)) × near level)"
        case .sample(let sample):
            let v = sample.vector
            let kind = sample.kind.rawValue.padding(to: 13)
            return "\(fixed(sample.timestamp, 6, width: 14))  \(kind) x=\(fixed(v.x, 4, width: 9, plus: true)) y=\(fixed(v.y, 4, width: 9, plus: true)) z=\(fixed(v.z, 4, width: 9, plus: true)) \(sample.kind.unit)"
        case .deviceMotion(let motion):
            let a = motion.attitude, g = motion.gravity.vector, u = motion.userAcceleration.vector
            let degrees = 180 / Double.pi
            func angle(_ radians: Double) -> String { fixed(radians * degrees, 2, width: 7, plus: true) + "°" }
            func vector(_ v: Vector3) -> String { "(\(fixed(v.x, 3, plus: true)) \(fixed(v.y, 3, plus: true)) \(fixed(v.z, 3, plus: true)))" }
            let heading = motion.heading >= 0 ? " heading=\(fixed(motion.heading, 1, width: 5))°" : ""
            return "\(fixed(motion.timestamp, 6, width: 14))  roll=\(angle(a.roll)) pitch=\(angle(a.pitch)) yaw=\(angle(a.yaw))  gravity=\(vector(g)) user=\(vector(u)) G"
                + heading + "  magnetometer \(motion.magneticField.accuracy)"
        case .availability(let kind, let state):
            return "# \(kind) \(state.available ? "available" : "unavailable"): \(state.reason)"
        case .hinge(let angle):
            return "\(fixed(angle.timestamp, 6, width: 14))  hinge         \(fixed(angle.degrees, 1, width: 5))° (\(angle.accuracy))"
        case .event(let event):
            return event.text
        case .heading(let heading, let orientation, _):
            let trueHeading = heading.trueHeading >= 0 ? " true \(fixed(heading.trueHeading, 1, width: 5))°" : ""
            let accuracy = heading.headingAccuracy >= 0 ? " ±\(fixed(heading.headingAccuracy, 0))°" : " (uncalibrated)"
            return "\(fixed(heading.timestamp, 6, width: 14))  heading magnetic \(fixed(heading.magneticHeading, 1, width: 5))°" + trueHeading + accuracy
                + (orientation == .portrait ? "" : " (\(orientation) edge)")
        case .calibration(let accuracy, let needed):
            return "# magnetometer calibration \(accuracy)\(needed ? ": move the device in a figure eight" : "")"
        case .dropped(let stream, let count, let total):
            return "# \(count) \(stream) values dropped (\(total) in all): reading too slowly"
        case .goodbye(let reason):
            return "# the daemon closed the connection: \(reason)"
        default:
            return nil
        }
    }
}

private func fixed(_ value: Double, _ decimals: Int, width: Int = 0, plus: Bool = false) -> String {
    DecimalText.fixed(value, decimals: decimals, width: width, plus: plus)
}
