import Glibc

/// A motion event, as published on the socket (its wire shape is MotionProtocol's) and printed
/// by `motionctl analyze`: an orientation change, a tilt change, a shake phase, a gesture or a
/// convertible's posture change, stamped with the sample time (seconds since boot).
public enum MotionEvent: Sendable, Hashable, Codable {
    case orientation(DeviceOrientation, timestamp: Double)
    /// How far the screen faces up or down changed (``DeviceTilt``).
    case tilt(DeviceTilt, timestamp: Double)
    case shake(ShakeDetector.Phase, timestamp: Double)
    case gesture(Gesture, timestamp: Double)
    /// A convertible's posture changed (``PostureDetector``).
    case posture(Posture, timestamp: Double)

    public var timestamp: Double {
        switch self {
        case .orientation(_, let t), .tilt(_, let t), .shake(_, let t), .gesture(_, let t), .posture(_, let t): return t
        }
    }

    /// One line for people.
    public var text: String {
        switch self {
        case .orientation(let orientation, let t):
            return "\(DecimalText.fixed(t, decimals: 3))  orientation \(orientation.rawValue)"
        case .tilt(let tilt, let t):
            return "\(DecimalText.fixed(t, decimals: 3))  tilt \(tilt.rawValue)"
        case .shake(let phase, let t):
            return "\(DecimalText.fixed(t, decimals: 3))  shake \(phase.rawValue)"
        case .gesture(let gesture, let t):
            return "\(DecimalText.fixed(t, decimals: 3))  gesture \(gesture.rawValue)"
        case .posture(let posture, let t):
            return "\(DecimalText.fixed(t, decimals: 3))  posture \(posture.rawValue)"
        }
    }
}
