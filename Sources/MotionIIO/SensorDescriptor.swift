import MotionCore

/// Everything motiond found out about one sensor on one IIO device (a 3-axis motion sensor, or
/// a one-channel light or proximity sensor): which channels carry it, how raw values become
/// Core Motion values (scale, offset, mount matrix, near level, with where each came from), how
/// it will be read and why. `motiond --list-sensors` prints these.
public struct SensorDescriptor: Sendable, Hashable, Codable {
    public var kind: SensorKind
    /// The IIO device id, `iio:deviceN`.
    public var device: String
    /// The device's `name` attribute: the driver's part name (`mpu6050`, `accel_3d`).
    public var driver: String
    public var label: String?
    public var location: SensorLocation
    /// Where the location came from, e.g. `udev ACCEL_LOCATION`, `label`, `default`.
    public var locationSource: String
    /// The x, y, z channels; the one channel of a light or proximity sensor.
    public var axes: [Axis]
    /// Raw-to-Core-Motion conversion, including the mount matrix actually applied.
    public var conversion: SampleConversion
    public var mountMatrix: MountMatrixChoice
    public var samplingFrequency: SamplingFrequency?
    /// The read mode planned at discovery (a buffer that yields nothing falls back to polling
    /// where the channels have `_raw` attributes).
    public var readMode: ReadMode
    public var readModeReason: String
    /// The trigger the buffer will use, if it needs one.
    public var trigger: String?
    /// A proximity sensor's near level (raw units) and where it came from; readings are
    /// divided by it (``SensorKind``).
    public var nearLevel: NearLevel?

    /// One axis channel and the attributes its conversion came from.
    public struct Axis: Sendable, Hashable, Codable {
        /// sysfs prefix, e.g. `in_accel_x`.
        public var channel: String
        /// libiio channel id, e.g. `accel_x`.
        public var id: String
        /// The attribute polled: `raw` (scaled by the conversion), or `input` for a channel
        /// that has only the processed value (`in_illuminance_input`, already in lux).
        public var valueAttribute: String
        /// The attribute the scale came from (`in_accel_x_scale`, `in_accel_scale`, …), with a
        /// driver's correction named (``DriverScaleCorrection``), or `nil` when the device has
        /// none (scale 1).
        public var scaleAttribute: String?
        public var offsetAttribute: String?
        /// Scan element format (`be:s16/16>>0`) and index, for buffer-capable channels.
        public var scanType: String?
        public var scanIndex: Int?
    }

    /// The mount matrix in force and its provenance.
    public struct MountMatrixChoice: Sendable, Hashable, Codable {
        /// `configuration`, `udev ACCEL_MOUNT_MATRIX`, `sysfs in_accel_mount_matrix`, …, or `default (identity)`.
        public var source: String
        /// The matrix as found, before any correction.
        public var given: String
        /// True when `given` was improper and its z row was negated (a HID sensor hub's).
        public var correctedImproper: Bool
        /// True for a chip that reports the specific force (every driver but a HID sensor
        /// hub's): the accelerometer's matrix is `given` made improper (its z row negated if it
        /// was proper), the gyroscope's and magnetometer's that negated (``SensorDiscovery``).
        public var specificForce: Bool
        /// Rejected candidates and corrections, one sentence each.
        public var notes: [String]
    }

    /// The reading at which an object counts as near.
    public struct NearLevel: Sendable, Hashable, Codable {
        public var value: Double
        /// `udev PROXIMITY_NEAR_LEVEL` or the sysfs attribute it came from.
        public var source: String
    }

    /// The device's sampling-frequency attribute.
    public struct SamplingFrequency: Sendable, Hashable, Codable {
        /// `in_accel_sampling_frequency` (HID, per type) or `sampling_frequency`.
        public var attribute: String
        /// The channel (libiio id) that carries a per-type attribute; `nil` for the device's.
        public var channel: String?
        /// Current value in Hz, if readable.
        public var current: Double?
        /// The `_available` values, if the driver lists them.
        public var available: AvailableValues?
    }

    /// A one-line summary for logs: `accelerometer on iio:device0 (mpu6050), display`.
    public var summary: String {
        "\(kind) on \(device) (\(driver))\(label.map { " label \($0)" } ?? ""), \(location)"
    }

    /// What discovery made of the sensor, for the log: ``summary``, the scale and offset per
    /// axis as parsed (C notation whatever the locale: `scale 0.00001 0.00001 0.00001`), and
    /// the planned read mode with its reason (`read buffered (scan elements, …)`).
    public var findings: String {
        let conversion = nearLevel.map { "near level \(SysfsNumber.format($0.value))" }
            ?? "scale \(axisValues(self.conversion.scale)), offset \(axisValues(self.conversion.offset))"
        return "\(summary): \(conversion); read \(readMode) (\(readModeReason))"
    }

    /// The components of `v` the sensor has (3 for a motion sensor, 1 for light), as sysfs
    /// numbers: `0.00001 0.00001 0.00001`.
    func axisValues(_ v: Vector3) -> String {
        v.components.prefix(axes.count).map(SysfsNumber.format).joined(separator: " ")
    }
}

/// A device or sensor that discovery passed over, and why.
public struct SkippedSensor: Sendable, Hashable, Codable, CustomStringConvertible {
    public var device: String
    public var driver: String?
    public var kind: SensorKind?
    public var reason: String

    public var description: String {
        "skipped \(kind.map { "\($0) on " } ?? "")\(device)\(driver.map { " (\($0))" } ?? ""): \(reason)"
    }
}
