/// A proximity decision: `near`, the reading that made it (in near levels) and when (seconds
/// since boot).
public struct Proximity: Sendable, Hashable, Codable {
    public var near: Bool
    public var level: Double
    public var timestamp: Double

    public init(near: Bool, level: Double, timestamp: Double) {
        self.near = near
        self.level = level
        self.timestamp = timestamp
    }
}
