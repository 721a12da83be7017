/// Why ``MotionEngine`` cannot give device motion (or a heading) right now.
public enum DeviceMotionUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// The frame needs something the device or configuration lacks (a magnetometer, a
    /// location or declination); `reason` says what.
    case frameUnavailable(AttitudeReferenceFrame, reason: String)
    /// The estimator is not initialised yet (no accelerometer and gyroscope samples, or no
    /// magnetometer sample yet for the magnetic frames).
    case warmingUp
    /// Not one of the four frames (an empty set or several at once).
    case notAFrame(AttitudeReferenceFrame)

    public var description: String {
        switch self {
        case .frameUnavailable(let frame, let reason): return "\(frame) is unavailable: \(reason)"
        case .warmingUp: return "the motion estimator is still warming up"
        case .notAFrame(let frame): return "'\(frame)' is not a single reference frame"
        }
    }
}
