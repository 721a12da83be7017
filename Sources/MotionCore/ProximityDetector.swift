/// Whether something is near the proximity sensor (a face during a call, a table under a
/// phone lying face down), from its readings in units of its near level (``SensorKind``), by
/// iio-sensor-proxy's rule: near when a reading is above 1.1 near levels — or above 0.9 when
/// the reading before it was above the level. The margin is keyed on the previous reading, not
/// on the state: a reading just over the level is near from its second reading on, one just
/// under it stays near for one reading after a near one and is far from the next. A steady
/// reading is thus near exactly when it is above the level. Pure: readings in, changes out.
public struct ProximityDetector: Sendable {
    /// The last decision, nil before the first finite reading.
    public private(set) var state: Proximity?
    /// The previous finite reading, in near levels.
    private var previous: Double?

    /// The margin around the near level, a fraction of it (iio-sensor-proxy's 10 %).
    public static let margin = 0.1

    public init() {}

    /// Takes one proximity sample; returns the new state when it changed (the first reading
    /// always does). A non-finite reading changes nothing.
    public mutating func update(_ sample: Sample) -> Proximity? {
        let level = sample.vector.x
        guard sample.kind == .proximity, level.isFinite, sample.timestamp.isFinite else { return nil }
        let threshold = (previous ?? 0) > 1 ? 1 - Self.margin : 1 + Self.margin
        previous = level
        let near = level > threshold
        guard near != state?.near else { return nil }
        let now = Proximity(near: near, level: level, timestamp: sample.timestamp)
        state = now
        return now
    }

    /// Forgets the state and the previous reading (the sensor stopped: the next reading
    /// decides afresh).
    public mutating func reset() {
        state = nil
        previous = nil
    }
}
