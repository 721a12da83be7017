/// Values derived from a sensor's sample interval (filter gains and coefficients, which cost an
/// `exp` or a `tan`), remembered for the two latest distinct intervals so they are computed only
/// when the interval changes. Two, because a steady rate's intervals alternate between
/// neighbouring doubles: timestamps written in decimal (0.0035 s steps) differ in their last bits.
/// (With jittering timestamps every interval is new, and the cache costs two comparisons.)
/// Whatever else the values derive from (time constants) must be fixed, or the holder empties the
/// cache when it changes.
struct IntervalCache<Value: Sendable>: Sendable {
    private var latest: (dt: Double, value: Value)?
    private var previous: (dt: Double, value: Value)?

    /// The value for `dt`: remembered, or made by `make` (which replaces the older one).
    mutating func value(for dt: Double, _ make: (Double) -> Value) -> Value {
        if let latest, latest.dt == dt { return latest.value }
        if let previous, previous.dt == dt { return previous.value }
        let value = make(dt)
        previous = latest
        latest = (dt, value)
        return value
    }
}
