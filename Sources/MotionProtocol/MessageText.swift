import Foundation
import MotionCore

extension ServerMessage {
    /// The message as a line for people (`motiond --print-samples` without `--json`,
    /// `motionctl monitor`): samples with their units, device motion as Euler angles in
    /// degrees, events by name, availability as a comment line; nil for replies and hello.
    public var text: String? {
        switch self {
        case .sample(let sample):
            let v = sample.vector
            let kind = sample.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)
            return String(format: "%14.6f  %@ x=%+9.4f y=%+9.4f z=%+9.4f %@", sample.timestamp, kind, v.x, v.y, v.z, sample.kind.unit)
        case .deviceMotion(let motion):
            let a = motion.attitude, g = motion.gravity.vector, u = motion.userAcceleration.vector
            let degrees = 180 / Double.pi
            let heading = motion.heading >= 0 ? String(format: " heading=%5.1f°", motion.heading) : ""
            return String(format: "%14.6f  roll=%+7.2f° pitch=%+7.2f° yaw=%+7.2f°  gravity=(%+.3f %+.3f %+.3f) user=(%+.3f %+.3f %+.3f) G",
                          motion.timestamp, a.roll * degrees, a.pitch * degrees, a.yaw * degrees, g.x, g.y, g.z, u.x, u.y, u.z)
                + heading + "  magnetometer \(motion.magneticField.accuracy)"
        case .availability(let kind, let state):
            return "# \(kind) \(state.available ? "available" : "unavailable"): \(state.reason)"
        case .event(let event):
            return event.text
        case .heading(let heading, let orientation, _):
            let trueHeading = heading.trueHeading >= 0 ? String(format: " true %5.1f°", heading.trueHeading) : ""
            let accuracy = heading.headingAccuracy >= 0 ? String(format: " ±%.0f°", heading.headingAccuracy) : " (uncalibrated)"
            return String(format: "%14.6f  heading magnetic %5.1f°", heading.timestamp, heading.magneticHeading) + trueHeading + accuracy
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
