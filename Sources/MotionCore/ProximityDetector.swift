/// Whether something is near the proximity sensor (a face during a call, a table under a
/// phone lying face down), from its readings in units of its near level (``SensorKind``):
/// near above 1.1, far again below 0.9 — iio-sensor-proxy's ±10 % around the near level, but
/// keyed on the state, not on the previous raw reading, so a steady reading just under the
/// level never flips it. Pure: readings in, changes out.
public struct ProximityDetector: Sendable {
    /// The last decision, nil before the first finite reading.
    public private(set) var state: Proximity?

    /// Leaving "far" needs a reading above this many near levels…
    public static let nearAbove = 1.1
    /// …and leaving "near" one below this many.
    public static let farBelow = 0.9

    public init() {}

    /// Takes one proximity sample; returns the new state when it changed (the first reading
    /// always does). A non-finite reading changes nothing.
    public mutating func update(_ sample: Sample) -> Proximity? {
        let level = sample.vector.x
        guard sample.kind == .proximity, level.isFinite, sample.timestamp.isFinite else { return nil }
        let wasNear = state?.near ?? false
        let near = wasNear ? level > Self.farBelow : level > Self.nearAbove
        guard near != state?.near else { return nil }
        let now = Proximity(near: near, level: level, timestamp: sample.timestamp)
        state = now
        return now
    }

    /// Forgets the state (the sensor stopped: the next reading decides afresh).
    public mutating func reset() { state = nil }
}
