/// Boot-clock timestamps (seconds) for samples whose own timestamps cannot be used as they
/// are, from the times they arrive:
/// - samples that come without one — a buffer without a timestamp channel (a HID magnetometer
///   whose hub does not stamp its reports), a device on another machine — placed by their
///   sample number (``stamps(count:arrival:)``);
/// - samples stamped on another clock — a HID sensor hub that stamps its own reports, which
///   makes the kernel ignore `current_timestamp_clock` — placed by their own timestamps
///   (``stamps(deviceTimes:arrival:)``), whose spacing is exact but whose zero is the hub's.
///
/// Arrival times jitter (0.1–40 ms around a 20 ms period under load) and a refill brings a
/// whole batch at one instant; stamped as they come, fusion would see the jitter as rate
/// changes and a batch as samples 0 s apart. So arrivals are modelled as a line over the
/// samples' positions (their numbers, or their own times), each arrival late by a delay of its
/// own: the slope is the least-squares fit to the last ``window`` arrivals (the device's real
/// period; a device's clock is taken at the boot clock's rate), and the line is laid on the
/// earliest of them (the least delayed: a sample cannot arrive before it was taken). Stamps
/// come from that line, always increasing. Placed by number they are never after their
/// arrival. Placed by a device's own times, whose spacing is exact, they keep it: when earlier
/// arrivals show the line lay too late (the first samples came late, a backlog was read at
/// once), it moves back by at most a tenth of the time that passed, so the spacing shrinks by
/// at most 10 % and stamps may for a while come after their arrival. An arrival more than ten
/// periods off the line (a pause, a reopened buffer, a hub clock that jumped) starts afresh.
public struct ArrivalTimestamps: Sendable {
    /// The period the device was asked for, seconds.
    public let nominalPeriod: Double
    /// How many arrivals the line is fitted to.
    public let window: Int
    /// The slope followed: seconds per sample (sample numbers) or boot-clock seconds per
    /// device second (device times); the nominal one until ten arrivals were seen.
    public private(set) var slope: Double
    private let slopeRange: ClosedRange<Double>
    /// Whether positions are a device's own times (exact spacing, kept).
    private let onDeviceClock: Bool

    /// Observed (position, arrival) pairs, oldest first, at most `window`; positions and
    /// arrivals are relative to those of the last fresh start (precision).
    private var observed: [(position: Double, arrival: Double)] = []
    private var origin = (position: 0.0, arrival: 0.0)
    /// Where the line lies: `target` on the least delayed arrival, `intercept` where it is
    /// placed (the same, but while a device clock's line moves back).
    private var target = 0.0
    private var intercept = 0.0
    /// The newest position placed so far (relative to the origin).
    private var lastPosition = 0.0
    /// The number the next sample gets (sample numbers).
    private var nextNumber = 0.0
    private var last = -Double.infinity

    /// For samples placed by their number, `nominalPeriod` apart.
    public init(nominalPeriod: Double, window: Int = 500) {
        self.init(nominalPeriod: nominalPeriod, slope: nominalPeriod, range: nominalPeriod / 2...nominalPeriod * 2, window: window, onDeviceClock: false)
    }

    /// For samples placed by their own timestamps, read every `nominalPeriod` seconds. The
    /// device's clock is taken to run at the boot clock's rate — a crystal's drift (tens of
    /// ppm, under a millisecond over the window) is followed by the line's placement; a fitted
    /// rate would be far noisier than that.
    public init(deviceClockPeriod nominalPeriod: Double, window: Int = 500) {
        self.init(nominalPeriod: nominalPeriod, slope: 1, range: 1...1, window: window, onDeviceClock: true)
    }

    private init(nominalPeriod: Double, slope: Double, range: ClosedRange<Double>, window: Int, onDeviceClock: Bool) {
        self.onDeviceClock = onDeviceClock
        precondition(nominalPeriod > 0 && window >= 2)
        self.nominalPeriod = nominalPeriod
        self.window = window
        self.slope = slope
        slopeRange = range
    }

    /// Stamps, oldest first, for `count` samples that arrived together at `arrival`.
    public mutating func stamps(count: Int, arrival: Double) -> [Double] {
        guard count > 0, arrival.isFinite else { return [] }
        let numbers = (0..<count).map { nextNumber + Double($0) }
        nextNumber += Double(count)
        return place(numbers, arrival: arrival)
    }

    /// Boot-clock stamps for samples stamped `deviceTimes` (seconds, oldest first) on their
    /// own clock, that arrived together at `arrival`.
    public mutating func stamps(deviceTimes: [Double], arrival: Double) -> [Double] {
        guard !deviceTimes.isEmpty, deviceTimes.allSatisfy(\.isFinite), arrival.isFinite else { return [] }
        return place(deviceTimes, arrival: arrival)
    }

    /// The stamps of samples at `positions` (oldest first), the newest arriving at `arrival`.
    private mutating func place(_ positions: [Double], arrival: Double) -> [Double] {
        let oldest = positions.first!, newest = positions.last!
        let fresh = observed.isEmpty || abs(arrival - origin.arrival - (target + slope * (newest - origin.position))) > 10 * nominalPeriod
        if fresh {
            // Fresh start: the newest sample taken at its arrival, the others before it.
            observed = []
            origin = (oldest, arrival - (newest - oldest) * slope)
        }
        let placed = intercept
        observed.append((newest - origin.position, arrival - origin.arrival))
        if observed.count > window { observed.removeFirst(observed.count - window) }
        fit()
        intercept = onDeviceClock && !fresh && target < placed
            ? max(target, placed - 0.1 * slope * max(newest - origin.position - lastPosition, 0)) : target
        lastPosition = newest - origin.position
        // The line lies on or under every arrival it was fitted to, the newest included (but
        // for a device clock's line while it moves back).
        var stamps = positions.map { origin.arrival + line(at: $0 - origin.position) }
        if stamps[0] <= last {
            // Increasing: compressed into the time between the previous stamp and these.
            let end = max(stamps.last!, last + 1e-6 * Double(stamps.count))
            let step = (end - last) / Double(stamps.count)
            stamps = (1...stamps.count).map { last + Double($0) * step }
        }
        last = stamps.last!
        return stamps
    }

    /// Where the line puts `position` (relative to the origin).
    private func line(at position: Double) -> Double {
        intercept + slope * position
    }

    /// The slope (least squares, once ten arrivals are in) and the target laid on the earliest
    /// arrival.
    private mutating func fit() {
        if observed.count >= 10 {
            let n = Double(observed.count)
            let meanPosition = observed.reduce(0) { $0 + $1.position } / n
            let meanArrival = observed.reduce(0) { $0 + $1.arrival } / n
            var sxy = 0.0, sxx = 0.0
            for (position, arrival) in observed {
                sxy += (position - meanPosition) * (arrival - meanArrival)
                sxx += (position - meanPosition) * (position - meanPosition)
            }
            if sxx > 0 { slope = min(max(sxy / sxx, slopeRange.lowerBound), slopeRange.upperBound) }
        }
        target = observed.map { $0.arrival - slope * $0.position }.min() ?? 0
    }
}
