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
enum SamplingRate {
    /// Sets every distinct frequency attribute of `sensors` (one per type on HID hubs and
    /// bmi160-like chips, one for the whole device elsewhere).
    static func apply(period: Double, to device: IIODevice, sensors: [SensorDescriptor], exclusive: Bool, logger: Logger) {
        var seen = Set<String>()
        for attribute in sensors.compactMap(\.samplingFrequency) where seen.insert(attribute.attribute).inserted {
            apply(period: period, to: device, attribute: attribute, exclusive: exclusive, logger: logger)
        }
    }

    /// Writes the frequency if it needs changing; returns the frequency in force, if known.
    @discardableResult
    private static func apply(period: Double, to device: IIODevice, attribute: SensorDescriptor.SamplingFrequency, exclusive: Bool,
                              logger: Logger) -> Double? {
        let wanted = 1 / period
        let target: Double
        if let available = attribute.available {
            target = available.choose(atLeast: wanted)
        } else {
            target = wanted.rounded(.up)
        }
        let channel = attribute.channel.flatMap(device.inputChannel)
        let current = (channel.map { try? $0.read("sampling_frequency") } ?? (try? device.read("sampling_frequency"))).flatMap(SysfsNumber.parse)
        if let current, abs(current - target) < 1e-6 { return current }
        // Without a list, a polled device already at least as fast as wanted is left alone.
        if !exclusive, attribute.available == nil, let current, current >= wanted - 1e-9 { return current }
        do throws(IIOError) {
            if let channel {
                try channel.write("sampling_frequency", SysfsNumber.format(target))
            } else {
                try device.write("sampling_frequency", SysfsNumber.format(target))
            }
            logger.info("set \(attribute.attribute) of \(device) to \(SysfsNumber.format(target)) Hz for a \(SysfsNumber.format(period * 1000)) ms period")
            return target
        } catch {
            logger.warning("cannot set sampling frequency: \(error); keeping \(current.map { SysfsNumber.format($0) + " Hz" } ?? "the current rate")")
            return current
        }
    }
}
