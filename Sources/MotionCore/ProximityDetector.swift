/// Whether something is near the proximity sensor (a face during a call, a table under a
/// phone lying face down), from its readings in units of its near level (``SensorKind``):
/// near when a reading is above the level, and near until a reading falls below 0.9 levels —
/// the 10 % margin iio-sensor-proxy applies below the level. (iio-sensor-proxy keys its margin on
/// the previous raw reading rather than on its previous answer, so a steady reading just under
/// the level turns far there after one reading; here it stays near: no flapping around the
/// level.) Pure: readings in, changes out.
public struct ProximityDetector: Sendable {
    /// The last decision, nil before the first finite reading.
    public private(set) var state: Proximity?

    /// The margin below the near level that keeps near, a fraction of it (iio-sensor-proxy's 10 %).
    public static let margin = 0.1

    public init() {}

    /// Takes one proximity sample; returns the new state when it changed (the first reading
    /// always does). A non-finite reading changes nothing.
    public mutating func update(_ sample: Sample) -> Proximity? {
        let level = sample.vector.x
        guard sample.kind == .proximity, level.isFinite, sample.timestamp.isFinite else { return nil }
        let near = level > (state?.near == true ? 1 - Self.margin : 1)
        guard near != state?.near else { return nil }
        let now = Proximity(near: near, level: level, timestamp: sample.timestamp)
        state = now
        return now
    }

    /// Forgets the state (the sensor stopped: the next reading decides afresh).
    public mutating func reset() {
        state = nil
    }
}
