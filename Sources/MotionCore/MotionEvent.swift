import Foundation

/// A motion event, as published on the socket and printed by `motionctl analyze`: an
/// orientation change, a shake phase or a gesture, stamped with the sample time (seconds since
/// boot).
public enum MotionEvent: Sendable, Hashable, Codable {
    case orientation(DeviceOrientation, timestamp: Double)
    case shake(ShakeDetector.Phase, timestamp: Double)
    case gesture(Gesture, timestamp: Double)

    public var timestamp: Double {
        switch self {
        case .orientation(_, let t), .shake(_, let t), .gesture(_, let t): return t
        }
    }

    /// The event as one JSON object in the protocol's shapes (`{"type":"orientation",…}`,
    /// `{"type":"shake","timestamp":…,"phase":"began"}`, `{"type":"gesture",…,"gesture":"slapLeft"}`).
    public var json: String {
        switch self {
        case .orientation(let orientation, let t):
            return "{\"type\":\"orientation\",\"timestamp\":\(t),\"orientation\":\"\(orientation.rawValue)\"}"
        case .shake(let phase, let t):
            return "{\"type\":\"shake\",\"timestamp\":\(t),\"phase\":\"\(phase.rawValue)\"}"
        case .gesture(let gesture, let t):
            return "{\"type\":\"gesture\",\"timestamp\":\(t),\"gesture\":\"\(gesture.rawValue)\"}"
        }
    }

    /// One line for people.
    public var text: String {
        switch self {
        case .orientation(let orientation, let t):
            return "\(String(format: "%.3f", t))  orientation \(orientation.rawValue)"
        case .shake(let phase, let t):
            return "\(String(format: "%.3f", t))  shake \(phase.rawValue)"
        case .gesture(let gesture, let t):
            return "\(String(format: "%.3f", t))  gesture \(gesture.rawValue)"
        }
    }
}
