/// Decides which samples of a faster stream a subscriber receives, so it gets one per
/// `interval` on average whatever the hardware period (the hardware runs at the fastest
/// subscriber's rate, everyone else is decimated). The daemon decimates per subscription, a
/// client library per local consumer of one subscription.
///
/// The samples' typical spacing is the median of the last three spacings: one late sample (a
/// long spacing, then a short one) or one gap does not move it. When it is no shorter than the
/// interval (within 1 %), every sample is delivered: there is nothing to decimate, and a
/// sample that came late must not push the next, on-time one out. Otherwise a sample is due
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

    public init(interval: Double) {
        self.interval = interval
    }

    /// Whether the sample at `time` is delivered; `period` is the spacing (seconds) between it
    /// and the sample before, as it came: hardware may run faster than asked.
    public mutating func admit(_ time: Double, period: Double) -> Bool {
        let typical = Self.median(period, earlier ?? period, earliest ?? earlier ?? period)
        earliest = earlier
        earlier = period
        guard typical < interval * 0.99 else {
            nextDue = nil
            return true
        }
        guard let due = nextDue else {
            nextDue = time + interval
            return true
        }
        guard time >= due - typical / 2 else { return false }
        nextDue = time - due > interval ? time + interval : due + interval
        return true
    }

    private static func median(_ a: Double, _ b: Double, _ c: Double) -> Double {
        max(min(a, b), min(max(a, b), c))
    }
}
