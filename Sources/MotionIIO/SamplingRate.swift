import Glibc
import Logging

/// Sets a device's sampling frequency for a wanted sample period.
///
/// The hardware must run at least as fast as it is read: the smallest `_available` frequency at
/// or above 1/period (else the fastest available); without an `_available` list, 1/period
/// itself when the current value is slower — or, for a device motiond reads through its buffer
/// (`exclusive`: every scan is delivered, so the rate is what clients get), whenever it
/// differs: a device left faster by an earlier run would otherwise deliver faster than the
/// period motiond says it reads at. A polled device left faster is left alone (another program
/// may read its buffer at that rate; polling reads at the period anyway). This also lifts
/// devices that default to 0–1 Hz (which never produce buffered data or block sysfs reads), as
/// iio-sensor-proxy's fix-up does.
///
/// Each write is returned as a ``Change`` holding the value it replaced, so that the source can
/// put back at exit what the kernel (or another program) had set.
enum SamplingRate {
    /// A frequency attribute motiond wrote, and what it said before.
    struct Change: Sendable, Hashable {
        var device: String
        var attribute: SensorDescriptor.SamplingFrequency
        /// The attribute's text before the write (as read, without its line end).
        var previous: String
        /// Names the attribute among all devices' (`device/attribute`).
        var key: String { "\(device)/\(attribute.attribute)" }

        /// Writes `previous` back.
        func restore(in context: IIOContext) throws(IIOError) {
            guard let found = context.device(named: device) else { throw IIOError(code: ENODEV, operation: "restore \(attribute.attribute) of \(device)") }
            try SamplingRate.write(previous, attribute, on: found)
        }
    }

    /// What ``apply(period:to:sensors:exclusive:logger:)`` did.
    struct Applied: Sendable {
        /// The writes made.
        var changes: [Change] = []
        /// The frequency in force afterwards, Hz, by attribute, where it could be read or was set.
        var frequencies: [String: Double] = [:]

        /// Seconds between the scans a device read through its buffer delivers for `sensor`
        /// (every scan, at the frequency in force), when that frequency is known.
        func period(of sensor: SensorDescriptor) -> Double? {
            sensor.samplingFrequency.flatMap { frequencies[$0.attribute] }.flatMap { $0 > 0 ? 1 / $0 : nil }
        }
    }

    /// Sets every distinct frequency attribute of `sensors` (one per type on HID hubs and
    /// bmi160-like chips, one for the whole device elsewhere).
    static func apply(period: Double, to device: IIODevice, sensors: [SensorDescriptor], exclusive: Bool, logger: Logger) -> Applied {
        var applied = Applied()
        var seen = Set<String>()
        for attribute in sensors.compactMap(\.samplingFrequency) where seen.insert(attribute.attribute).inserted {
            let (change, inForce) = apply(period: period, to: device, attribute: attribute, exclusive: exclusive, logger: logger)
            if let change { applied.changes.append(change) }
            applied.frequencies[attribute.attribute] = inForce
        }
        return applied
    }

    private static func write(_ value: String, _ attribute: SensorDescriptor.SamplingFrequency, on device: IIODevice) throws(IIOError) {
        if let channel = attribute.channel.flatMap(device.inputChannel) {
            try channel.write("sampling_frequency", value)
        } else {
            try device.write("sampling_frequency", value)
        }
    }

    /// Writes the frequency if it needs changing; returns the change made, if one was, and the
    /// frequency in force, if known.
    private static func apply(period: Double, to device: IIODevice, attribute: SensorDescriptor.SamplingFrequency, exclusive: Bool,
                              logger: Logger) -> (Change?, Double?) {
        let wanted = 1 / period
        let target: Double
        if let available = attribute.available {
            target = available.choose(atLeast: wanted)
        } else {
            target = wanted.rounded(.up)
        }
        let channel = attribute.channel.flatMap(device.inputChannel)
        let text = channel.map { try? $0.read("sampling_frequency") } ?? (try? device.read("sampling_frequency"))
        let current = text.flatMap(SysfsNumber.parse)
        if let current, abs(current - target) < 1e-6 { return (nil, current) }
        // Without a list, a polled device already at least as fast as wanted is left alone.
        if !exclusive, attribute.available == nil, let current, current >= wanted - 1e-9 { return (nil, current) }
        do throws(IIOError) {
            try write(SysfsNumber.format(target), attribute, on: device)
            logger.info("set \(attribute.attribute) of \(device) to \(SysfsNumber.format(target)) Hz for a \(SysfsNumber.format(period * 1000)) ms period")
            return (text.map { Change(device: device.id, attribute: attribute, previous: $0) }, target)
        } catch {
            logger.warning("cannot set sampling frequency: \(error); keeping \(current.map { SysfsNumber.format($0) + " Hz" } ?? "the current rate")")
            return (nil, current)
        }
    }
}
