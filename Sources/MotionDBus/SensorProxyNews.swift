/// Which of the pipeline's updates bring the D-Bus face something new: a changed state (a
/// property to send), or a reading of a sensor whose readings it has not seen since it started
/// reading it (claims waiting for a first reading are answered by it). Anything else — a light
/// reading every 0.8 s with the level unchanged, the accelerometer's rest readings — is not
/// handed to the face's queue, which would wake a thread for nothing.
struct SensorProxyNews: Sendable {
    /// The last state handed over.
    private var state = SensorProxyState()
    /// Sensors with a reading handed over since the face last started reading them.
    private var reading: Set<ProxySensor> = []

    /// Whether `new` and `readings` are news; recorded as handed over when they are.
    mutating func take(_ new: SensorProxyState, readings: Set<ProxySensor>) -> Bool {
        guard new != state || !readings.isSubset(of: reading) else { return false }
        state = new
        reading.formUnion(readings)
        return true
    }

    /// The face stopped reading `sensors`: their next reading is news again.
    mutating func stopped(_ sensors: some Sequence<ProxySensor>) {
        reading.subtract(sensors)
    }
}
