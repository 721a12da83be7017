/// Sleeping until the device moves: an accelerometer's own motion detector (the IIO events
/// ABI) armed with a threshold, and its event descriptor to wait on.
///
/// ```swift
/// let wakeup = try MotionWakeup(device: device, threshold: 0.05, duration: 0.1)
/// while try wakeup.wait(timeout: 60).isEmpty { /* still at rest (or cancelled) */ }
/// try wakeup.disarm()
/// ```
/// Creating one finds the offered events (``offers(of:)``), picks the most suitable kind
/// (``choose(from:)``), opens the event descriptor and only then arms the events, so a device
/// that cannot deliver events is left untouched. Every failure is a ``MotionWakeupError``
/// naming the device and what is missing; nothing is logged here.
///
/// Verified on emulated hardware (umockdev): discovery, the threshold conversion, the values
/// written and restored, and a clean error where the event ioctl is refused. Not verifiable
/// there, and so unverified: that a real driver accepts the values, raises events on motion,
/// and what its thresholds mean physically (see ``MotionEventArming``).
public final class MotionWakeup: Sendable {
    /// The events armed and what was written.
    public let arming: MotionEventArming
    private let stream: IIOEventStream

    /// Arms the device's preferred motion events with `threshold` in G (and `duration`
    /// seconds where the driver offers a period) and opens its event descriptor.
    public init(device: IIODevice, threshold: Double, duration: Double? = nil) throws(MotionWakeupError) {
        let chosen = Self.choose(from: try Self.offers(of: device))
        stream = try IIOEventStream(device: device)
        do {
            arming = try MotionEventArming(device: device, offers: chosen, threshold: threshold, duration: duration)
        } catch {
            stream.close()
            throw error
        }
    }

    /// The motion events `device` offers in `events/`, each with its threshold scale. Throws
    /// when the device is remote, has no `events/` directory or nothing in it reports motion.
    public static func offers(of device: IIODevice) throws(MotionWakeupError) -> [MotionEventOffer] {
        guard device.context.isLocal else { throw .notLocal(device: device.description) }
        let directory = SysfsDirectory(device: device)
        let files: [String]
        do {
            files = try directory.list("events")
        } catch {
            throw .noMotionEvents(device: device.description, found: [])
        }
        var offers = MotionEventOffer.offers(in: files)
        guard !offers.isEmpty else { throw .noMotionEvents(device: device.description, found: files) }
        for index in offers.indices {
            let axis = ["x", "y", "z"].contains(offers[index].axes) ? offers[index].axes : "x"
            // The event's own scale first, then the channel's by axis, type and device.
            for candidate in ["events/in_accel_scale", "in_accel_\(axis)_scale", "in_accel_scale", "in_scale"] {
                if let text = try? directory.read(candidate), let scale = SysfsNumber.parse(text), scale > 0 {
                    offers[index].scale = scale
                    offers[index].scaleSource = candidate
                    break
                }
            }
        }
        return offers
    }

    /// The events to arm: those of the first kind in ``MotionEventOffer/Kind`` order (rising
    /// before either within it), every axis of it.
    public static func choose(from offers: [MotionEventOffer]) -> [MotionEventOffer] {
        for kind in MotionEventOffer.Kind.allCases {
            for direction in [MotionEventOffer.Direction.rising, .either] {
                let group = offers.filter { $0.kind == kind && $0.direction == direction }
                if !group.isEmpty { return group }
            }
        }
        return []
    }

    /// Waits up to `timeout` seconds; the events that arrived (empty on timeout or cancel).
    public func wait(timeout: Double) throws(MotionWakeupError) -> [IIOEvent] {
        try stream.next(timeout: timeout)
    }

    /// Makes a `wait` return at once; safe from any thread.
    public func cancel() {
        stream.cancel()
    }

    /// Switches the events off, restoring every attribute arming changed, and closes the
    /// event descriptor. Later calls do nothing.
    public func disarm() throws(MotionWakeupError) {
        defer { stream.close() }
        try arming.disarm()
    }
}
