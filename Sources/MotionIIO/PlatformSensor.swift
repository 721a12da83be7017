import MotionCore

/// A sensor outside IIO that iio-sensor-proxy reads too, and how to read it: an input-subsystem
/// accelerometer (lis3lv02d-style laptops: an evdev node with `ABS_X/Y/Z`), an input proximity
/// switch (evdev `SW_FRONT_PROXIMITY`), or a hwmon ambient-light attribute (applesmc's
/// `light`, `(left,right)`). Found by ``PlatformDiscovery``, read by ``PlatformSource``.
public struct PlatformSensor: Sendable, Hashable {
    /// Where the values come from.
    public enum Access: Sendable, Hashable {
        /// The evdev node of an input accelerometer; raw axis values count 1 G as 256.
        case inputAccelerometer(node: String)
        /// The evdev node of a device with a `SW_FRONT_PROXIMITY` switch.
        case inputProximity(node: String)
        /// The sysfs directory holding a `light` attribute `(left,right)`, each 0–255.
        case hwmonLight(directory: String)
    }

    public var kind: SensorKind
    public var access: Access
    /// The device's sysfs path, e.g. `/sys/devices/platform/applesmc.768` (log lines, status).
    public var syspath: String
    /// The device's name (the input device's `NAME`, else the sysfs name).
    public var name: String
    /// Raw-to-Core-Motion conversion (an input accelerometer's 1/256 G and udev mount matrix).
    public var conversion: SampleConversion
    public var location: SensorLocation
    /// The unit of the values when it is not the kind's own (``SensorKind/unit``): `vendor` for
    /// a hwmon light sensor, whose level is a percentage of its range, not lux.
    public var unit: String?

    /// An input accelerometer's counts per G (iio-sensor-proxy's and the lis3lv02d driver's
    /// scale: 1 G ≈ 256).
    public static let inputCountsPerG = 256.0
    /// A hwmon light channel's full range.
    public static let hwmonLightMaximum = 255.0
    /// The value of an input proximity switch that is on (near) and off (far), in near levels
    /// (``SensorKind``): well clear of the proximity detector's hysteresis either way.
    public static let switchNear = 2.0
    public static let switchFar = 0.0

    /// One line for logs and availability reasons: `light on /sys/devices/platform/applesmc.768 (applesmc), hwmon`.
    public var summary: String {
        let how = switch access {
        case .inputAccelerometer(let node), .inputProximity(let node): "evdev \(node)"
        case .hwmonLight: "hwmon light"
        }
        return "\(kind) on \(syspath) (\(name)), \(how)"
    }

    /// An applesmc `light` value `(left,right)` as iio-sensor-proxy's level: the brighter
    /// channel as a percentage of the range (0–100, unit `vendor`); nil when it does not parse.
    public static func hwmonLightLevel(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("("), trimmed.hasSuffix(")") else { return nil }
        let parts = trimmed.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let left = Int(parts[0].trimmingWhitespace()), let right = Int(parts[1].trimmingWhitespace()) else { return nil }
        return Double(max(left, right)) / hwmonLightMaximum * 100
    }
}
