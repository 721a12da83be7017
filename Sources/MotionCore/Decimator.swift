/// Decides which samples of a faster stream a subscriber receives, so it gets one per
/// `interval` on average whatever the hardware period (the hardware runs at the fastest
/// subscriber's rate, everyone else is decimated). The daemon decimates per subscription, a
/// client library per local consumer of one subscription.
///
/// A sample is due when it is no earlier than half a sample spacing before the next due
/// time; the due time then advances by exactly one interval, so timing jitter and hardware
/// rates that are not a multiple of the interval (52 Hz for 20 ms) average out. After a gap
/// longer than an interval the schedule restarts from the sample.
public struct Decimator: Sendable, Hashable {
    /// Seconds between delivered samples.
    public let interval: Double
    private var nextDue: Double?

    public init(interval: Double) {
        self.interval = interval
    }

    /// Whether the sample at `time` is delivered; `period` is the spacing of the samples
    /// (seconds): the actual one, since hardware may run faster than asked.
    public mutating func admit(_ time: Double, period: Double) -> Bool {
        guard let due = nextDue else {
            nextDue = time + interval
            return true
        }
        let tolerance = min(period, interval) / 2
        guard time >= due - tolerance else { return false }
        nextDue = time - due > interval ? time + interval : due + interval
        return true
    }
}
