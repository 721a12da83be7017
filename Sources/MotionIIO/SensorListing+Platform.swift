import MotionCore

extension SensorListing {
    /// An input or hwmon sensor in the listing: its kind, sysfs path and one-line summary
    /// (``PlatformSensor/summary``).
    public struct PlatformEntry: Sendable, Codable {
        public var kind: SensorKind
        public var device: String
        public var summary: String
    }

    /// Adds the input and hwmon sensors of `local:` (``PlatformDiscovery``): each is used for a
    /// kind IIO has no sensor of (as ``LocalSource`` reads them), and what was passed over
    /// joins the skipped.
    mutating func add(platform found: PlatformDiscovery.Result) {
        for sensor in found.sensors where selected[sensor.kind.rawValue] == nil {
            selected[sensor.kind.rawValue] = sensor.syspath
        }
        platformSensors = found.sensors.map { PlatformEntry(kind: $0.kind, device: $0.syspath, summary: $0.summary) }
        skipped += found.skipped
        hinge = Self.hinge(selected)
    }
}
