/// Decides which samples of a faster stream a subscriber receives, so it gets one per
/// `interval` on average whatever the hardware period (the hardware runs at the fastest
/// subscriber's rate, everyone else is decimated). The daemon decimates per subscription, a
/// client library per local consumer of one subscription.
///
/// The samples' typical spacing is the median of the last three spacings: one late sample (a
/// long spacing, then a short one) or one gap does not move it. When it is no shorter than the
/// interval (within 1 %), every sample is delivered: there is nothing to decimate, and a
/// sample that came late must not push the next, on-time one out (but for a stamp squashed
/// behind the one before, see ``squashed(_:)``); the schedule is kept all the same, for when
/// the samples come faster again. A median of three is at the mercy of jitter, though: a grid
/// at the interval whose stamps wander by tenths of a millisecond has two short spacings of
/// three often enough. So every sample is also delivered when the running average of the
/// samples' own spacings is no shorter than the interval (within 1 %) while the median is no
/// shorter than three quarters of it (a grid clearly faster is decimated whatever came before).
/// The average counts a gap as two intervals at most: after a stall, whose late first sample
/// is followed closely by an on-time one, it keeps every sample coming for a while (a stall
/// leaves nothing to make up for), and an hour's pause does not linger. Otherwise a sample is due
/// when it is no earlier than half the typical spacing before the next due time; the due time
/// then advances by exactly one interval, so timing jitter and hardware rates that are not a
/// multiple of the interval (52 Hz for 20 ms) average out. After a gap longer than an interval
/// the schedule restarts from the sample.
public struct Decimator: Sendable, Hashable {
    /// Seconds between delivered samples.
    public let interval: Double
    private var nextDue: Double?
    /// The two spacings before the latest, newest first; nil until seen.
    private var earlier: Double?
    private var earliest: Double?
    /// The time of the last sample delivered.
    private var lastDelivered: Double?
    /// The time of the sample before, delivered or not.
    private var previous: Double?
    /// The exponential average (weight ``averageWeight``) of the spacings between the samples
    /// as they came here, each at most two intervals; nil until one is seen.
    private var average: Double?
    private static let averageWeight = 1.0 / 8

    public init(interval: Double) {
        self.interval = interval
    }

    /// Whether the sample at `time` is delivered; `period` is the spacing (seconds) between it
    /// and the sample before, as it came: hardware may run faster than asked. The first sample
    /// is always delivered, and its `period` (a caller's guess: no sample came before) is not
    /// kept.
    public mutating func admit(_ time: Double, period: Double) -> Bool {
        defer { previous = time }
        guard let due = nextDue, let previous else {
            nextDue = time + interval
            lastDelivered = time
            return true
        }
        let typical = Self.median(period, earlier ?? period, earliest ?? earlier ?? period)
        earliest = earlier
        earlier = period
        let spacing = min(max(time - previous, 0), 2 * interval)
        let mean = average.map { $0 + Self.averageWeight * (spacing - $0) } ?? spacing
        average = mean
        let everything = typical >= interval * 0.99 || (mean >= interval * 0.99 && typical >= interval * 0.75)
        guard everything ? !squashed(time) : time >= due - typical / 2 else { return false }
        // Delivering everything, the schedule still follows the samples' grid (a late sample
        // does not move it), and never runs ahead of them.
        let restart = time - due > interval || (everything && time < due)
        nextDue = restart ? time + interval : due + interval
        lastDelivered = time
        return true
    }

    /// Whether `time` lies within a hundredth of the interval after the last sample delivered:
    /// no hardware period is that short (10 ms at the fastest), so it is a stamp squashed
    /// behind the one before (``ArrivalTimestamps`` keeps stamps increasing so, a microsecond
    /// apart, when one would land at or before the last: a line started afresh behind it, or
    /// two reports with the same device time), not a reading of its own time. Interval 0
    /// passes everything.
    private func squashed(_ time: Double) -> Bool {
        guard interval > 0, let lastDelivered else { return false }
        return time - lastDelivered < interval / 100
    }

    private static func median(_ a: Double, _ b: Double, _ c: Double) -> Double {
        max(min(a, b), min(max(a, b), c))
    }
}
