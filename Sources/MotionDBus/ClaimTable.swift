/// Who claims which sensor, counted per bus client (unique name) as iio-sensor-proxy counts:
/// a client may claim a sensor more than once and must release it as often; a client that
/// leaves the bus releases everything.
struct ClaimTable: Sendable, Equatable {
    private var counts: [ProxySensor: [String: Int]] = [:]

    /// Adds a claim; true when it is the sensor's first (reading must start).
    mutating func claim(_ sensor: ProxySensor, by client: String) -> Bool {
        let first = counts[sensor, default: [:]].isEmpty
        counts[sensor, default: [:]][client, default: 0] += 1
        return first
    }

    /// Drops one claim (none held: nothing happens); true when it was the sensor's last.
    mutating func release(_ sensor: ProxySensor, by client: String) -> Bool {
        guard let count = counts[sensor]?[client] else { return false }
        counts[sensor]![client] = count > 1 ? count - 1 : nil
        return counts[sensor]!.isEmpty
    }

    /// Drops every claim of a client that left; the sensors it was the last claimant of.
    mutating func remove(_ client: String) -> [ProxySensor] {
        var ended: [ProxySensor] = []
        for sensor in ProxySensor.allCases where counts[sensor]?[client] != nil {
            counts[sensor]![client] = nil
            if counts[sensor]!.isEmpty { ended.append(sensor) }
        }
        return ended
    }

    /// Drops every claim of `sensor` (it disappeared); true when there were any.
    mutating func clear(_ sensor: ProxySensor) -> Bool {
        counts.removeValue(forKey: sensor).map { !$0.isEmpty } ?? false
    }

    func claimants(of sensor: ProxySensor) -> [String] { (counts[sensor] ?? [:]).keys.sorted() }
    func isClaimed(_ sensor: ProxySensor) -> Bool { !(counts[sensor] ?? [:]).isEmpty }
    /// Whether `client` holds any claim at all (its vanishing must be watched).
    func holdsAny(_ client: String) -> Bool { counts.values.contains { $0[client] != nil } }
}
