import MotionCore
import MotionSync

/// Motion events switched on in a device's `events/` directory with a threshold in G; every
/// value it replaces is remembered and ``disarm()`` writes them all back, in reverse order.
///
/// Arming writes the threshold (`_value`) and, when asked and offered, the duration
/// (`_period`) of every armed event (a shared attribute once), then sets each `_en` to 1.
/// The threshold goes into raw units through the event's scale: `events/in_accel_scale` where
/// the driver gives one (mma8452: 0.617742 m/s² per unit whatever the range), else the
/// accelerometer channel's scale; rounded to a whole unit, at least 1. Some drivers count in
/// units of their own without saying so (bmc150-accel's slope threshold, kxcjk-1013's wake-up
/// threshold and durations in samples): there the threshold is off by the driver's factor;
/// nothing here can detect that.
public final class MotionEventArming: Sendable {
    /// One attribute written: its file under `events/`, the text it held and the text written.
    public struct Change: Sendable, Hashable {
        public var file: String
        public var old: String
        public var new: String
    }

    public let device: IIODevice
    /// The events switched on.
    public let offers: [MotionEventOffer]
    private let directory: SysfsDirectory
    /// What has been changed and not yet restored, oldest first.
    private let pending: Lock<[Change]>
    /// Everything arming wrote, oldest first.
    public let changes: [Change]

    /// Arms `offers` (from ``MotionWakeup/offers(of:)``) with `threshold` in G and, where a
    /// `_period` is offered, `duration` in seconds. On failure whatever was written is put back
    /// before the error is thrown.
    public init(device: IIODevice, offers: [MotionEventOffer], threshold: Double, duration: Double? = nil) throws(MotionWakeupError) {
        let directory = SysfsDirectory(device: device)
        var writes: [(file: String, value: String)] = []
        for offer in offers {
            if let value = offer.value {
                guard let scale = offer.scale, scale > 0 else { throw .noScale(device: device.description, event: offer.enable) }
                let raw = max(1, (threshold * PhysicalConstants.standardGravity / scale).rounded())
                writes.append(("events/\(value)", SysfsNumber.format(raw)))
            }
            if let duration, let period = offer.period {
                writes.append(("events/\(period)", SysfsNumber.format(duration)))
            }
        }
        writes += offers.map { ("events/\($0.enable)", "1") }
        var done: [Change] = []
        for write in writes where !done.contains(where: { $0.file == write.file }) {
            do throws(IIOError) {
                let old = try directory.read(write.file)
                try directory.write(write.file, write.value)
                done.append(Change(file: write.file, old: old, new: write.value))
            } catch {
                _ = Self.restore(done, in: directory)
                throw .attribute(device: device.description, error)
            }
        }
        self.device = device
        self.offers = offers
        self.directory = directory
        changes = done
        pending = Lock(done)
    }

    deinit {
        _ = Self.restore(pending.withLock { $0 }, in: directory)
    }

    /// Writes back every value arming replaced, the `_en` switches first; later calls do
    /// nothing. Goes on past failures and reports them at the end.
    public func disarm() throws(MotionWakeupError) {
        let changes = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        let failures = Self.restore(changes, in: directory)
        if !failures.isEmpty { throw .restore(device: device.description, failures) }
    }

    /// Restores `changes` newest first; the failures.
    private static func restore(_ changes: [Change], in directory: SysfsDirectory) -> [IIOError] {
        var failures: [IIOError] = []
        for change in changes.reversed() {
            do throws(IIOError) {
                try directory.write(change.file, change.old)
            } catch {
                failures.append(error)
            }
        }
        return failures
    }
}
