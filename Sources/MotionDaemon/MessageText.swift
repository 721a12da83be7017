import Foundation
import MotionCore
import MotionProtocol

/// Messages as lines for people (`motiond --print-samples` without `--json`): samples with
/// their units, device motion as Euler angles in degrees, availability as a comment line.
enum MessageText {
    /// The text line of a message, or nil for messages that have none.
    static func line(_ message: ServerMessage) -> String? {
        switch message {
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
        default:
            return nil
        }
    }
}
