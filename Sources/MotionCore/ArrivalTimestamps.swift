/// Timestamps for samples that come without one — a buffer without a timestamp channel (a HID
/// magnetometer whose hub does not stamp its reports), a device on another machine — from the
/// times they arrive (seconds on the boot clock).
///
/// Arrival times jitter (0.1–40 ms around a 20 ms period under load) and a refill brings a
/// whole batch at one instant; stamped as they come, fusion would see the jitter as rate
/// changes and a batch as samples 0 s apart. So the sample times are modelled as a line,
/// `start + n × period` (n counting samples), each arrival being late by a delay of its own:
/// the period is the least-squares slope of the last ``window`` arrivals against their sample
/// numbers (the device's real period, not the one asked for), and the line is laid on the
/// earliest of them (the least delayed: a sample cannot arrive before it was taken). Stamps
/// come from that line: never after their arrival, always increasing, spaced by the real
/// period within a batch. An arrival more than ten periods off the line (a pause, a reopened
/// buffer) starts afresh from it.
public struct ArrivalTimestamps: Sendable {
    /// The period the device was asked for, seconds.
    public let nominalPeriod: Double
    /// How many arrivals the line is fitted to.
    public let window: Int
    /// The period followed, seconds (the nominal one until enough arrivals were seen).
    public private(set) var period: Double

    /// Observed (sample number, arrival) pairs, oldest first, at most `window`; numbers count
    /// from the last fresh start, arrivals are relative to `origin` (precision).
    private var observed: [(number: Double, arrival: Double)] = []
    private var origin = 0.0
    /// The number the next sample gets.
    private var nextNumber = 0.0
    private var last = -Double.infinity

    public init(nominalPeriod: Double, window: Int = 500) {
        precondition(nominalPeriod > 0 && window >= 2)
        self.nominalPeriod = nominalPeriod
        self.window = window
        period = nominalPeriod
    }

    /// Stamps, oldest first, for `count` samples that arrived together at `arrival`.
    public mutating func stamps(count: Int, arrival: Double) -> [Double] {
        guard count > 0, arrival.isFinite else { return [] }
        let newestNumber = nextNumber + Double(count - 1)
        if observed.isEmpty || abs(arrival - origin - line(at: newestNumber)) > 10 * period {
            // Fresh start: this arrival is the newest sample's time.
            observed = []
            origin = arrival
            nextNumber = 0
            return stamps(count: count, arrival: arrival, newest: Double(count - 1))
        }
        return stamps(count: count, arrival: arrival, newest: newestNumber)
    }

    private mutating func stamps(count: Int, arrival: Double, newest: Double) -> [Double] {
        observed.append((newest, arrival - origin))
        if observed.count > window { observed.removeFirst(observed.count - window) }
        fit()
        var newestStamp = min(origin + line(at: newest), arrival)
        // Increasing: the oldest after the previous stamp, compressed into what time allows.
        var spacing = period
        if newestStamp - Double(count - 1) * spacing <= last {
            newestStamp = max(newestStamp, last + 1e-6 * Double(count))
            spacing = (newestStamp - last) / Double(count)
        }
        last = newestStamp
        nextNumber = newest + 1
        return (0..<count).map { newestStamp - Double(count - 1 - $0) * spacing }
    }

    /// Where the line puts sample `number` (relative to `origin`).
    private func line(at number: Double) -> Double {
        intercept + period * number
    }

    private var intercept = 0.0

    /// The period (least-squares slope, once ten arrivals span it) and the intercept laid on
    /// the earliest arrival.
    private mutating func fit() {
        if observed.count >= 10 {
            let n = Double(observed.count)
            let meanNumber = observed.reduce(0) { $0 + $1.number } / n
            let meanArrival = observed.reduce(0) { $0 + $1.arrival } / n
            var sxy = 0.0, sxx = 0.0
            for (number, arrival) in observed {
                sxy += (number - meanNumber) * (arrival - meanArrival)
                sxx += (number - meanNumber) * (number - meanNumber)
            }
            if sxx > 0 { period = min(max(sxy / sxx, nominalPeriod / 2), nominalPeriod * 2) }
        }
        intercept = observed.map { $0.arrival - period * $0.number }.min() ?? 0
    }
}
