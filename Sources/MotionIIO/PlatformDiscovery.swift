import CUDev
import Glibc
import MotionCore

/// Finds the sensors outside IIO that iio-sensor-proxy reads (``PlatformSensor``), in udev's
/// database, by the facts its drivers go by:
/// - an input accelerometer: an evdev node (`/dev/input/eventN`) whose udev
///   `IIO_SENSOR_PROXY_TYPE` has `input-accel` (iio-sensor-proxy's rule, from
///   `ID_INPUT_ACCELEROMETER=1`) or whose `MOTIOND_SENSOR` has `accelerometer` (motiond's rule,
///   the same condition); not one of a joypad (a sibling input device with
///   `ID_INPUT_JOYSTICK=1`: game controllers' motion sensors are not the screen's);
/// - an input proximity sensor: an evdev node whose input device lists `SW_FRONT_PROXIMITY` in
///   its `capabilities/sw` (no udev property needed, as for iio-sensor-proxy);
/// - a hwmon light sensor: a device with a `light` attribute whose `IIO_SENSOR_PROXY_TYPE` has
///   `hwmon-als` or whose `MOTIOND_SENSOR` has `light` (both rules: a hwmon device with `light`).
///
/// Devices of the IIO subsystem are ``SensorDiscovery``'s. A device that matches but cannot be
/// used (no device node, a mount matrix that does not parse) is passed over with the reason.
public enum PlatformDiscovery {
    /// What discovery found, and one sentence per device passed over.
    public struct Result: Sendable {
        public var sensors: [PlatformSensor] = []
        public var skipped: [SkippedSensor] = []
    }

    /// Discovers every such sensor udev knows; empty when udev is unavailable.
    public static func discover() -> Result {
        var result = Result()
        guard let udev = udev_new() else { return result }
        defer { udev_unref(udev) }
        for device in devices(udev, { enumerate in
            udev_enumerate_add_match_property(enumerate, "IIO_SENSOR_PROXY_TYPE", "*")
            udev_enumerate_add_match_property(enumerate, "MOTIOND_SENSOR", "*")
        }) {
            defer { udev_device_unref(device) }
            guard string(udev_device_get_subsystem(device)) != "iio" else { continue }
            let types = (property(device, "IIO_SENSOR_PROXY_TYPE") ?? "").split(separator: " ")
            let ours = (property(device, "MOTIOND_SENSOR") ?? "").split(separator: " ")
            if types.contains("input-accel") || (ours.contains("accelerometer") && string(udev_device_get_subsystem(device)) == "input") {
                switch inputAccelerometer(udev, device) {
                case .success(let sensor?): result.sensors.append(sensor)
                case .success(nil): break
                case .failure(let skip): result.skipped.append(SkippedSensor(device: string(udev_device_get_syspath(device)) ?? "?", kind: .accelerometer, reason: skip.reason))
                }
            }
            if types.contains("hwmon-als") || ours.contains("light") {
                let syspath = string(udev_device_get_syspath(device)) ?? ""
                if access("\(syspath)/light", F_OK) == 0 {
                    result.sensors.append(PlatformSensor(
                        kind: .light, access: .hwmonLight(directory: syspath), syspath: syspath, name: name(device),
                        conversion: SampleConversion(kind: .light, scale: Vector3(1, 1, 1)), location: .display, unit: "vendor"))
                } else {
                    result.skipped.append(SkippedSensor(device: syspath, kind: .light, reason: "udev calls it a hwmon light sensor but it has no light attribute"))
                }
            }
        }
        for device in devices(udev, { udev_enumerate_add_match_subsystem($0, "input") }) {
            defer { udev_device_unref(device) }
            if let sensor = inputProximity(device) { result.sensors.append(sensor) }
        }
        return result
    }

    private struct Skip: Error {
        var reason: String
    }

    /// The devices an enumeration set up by `match` finds, each referenced (the caller unrefs).
    private static func devices(_ udev: OpaquePointer, _ match: (OpaquePointer) -> Void) -> [OpaquePointer] {
        guard let enumerate = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(enumerate) }
        match(enumerate)
        udev_enumerate_scan_devices(enumerate)
        var found: [OpaquePointer] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let path = udev_list_entry_get_name(current), let device = udev_device_new_from_syspath(udev, path) {
                found.append(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return found.sorted { (string(udev_device_get_syspath($0)) ?? "") < (string(udev_device_get_syspath($1)) ?? "") }
    }

    private static func string(_ text: UnsafePointer<CChar>?) -> String? {
        text.map { String(cString: $0) }
    }

    private static func property(_ device: OpaquePointer, _ name: String) -> String? {
        string(udev_device_get_property_value(device, name))
    }

    /// The event node, if the device is an evdev one (`/dev/input/eventN`).
    private static func eventNode(_ device: OpaquePointer) -> String? {
        string(udev_device_get_devnode(device)).flatMap { $0.contains("/event") ? $0 : nil }
    }

    /// The input device's `NAME` (on the event node or its parent `inputN`), unquoted, else the
    /// sysfs name.
    private static func name(_ device: OpaquePointer) -> String {
        let parent = udev_device_get_parent(device)
        let text = property(device, "NAME") ?? parent.flatMap { property($0, "NAME") }
            ?? string(udev_device_get_sysname(device)) ?? "?"
        return text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }

    private static func inputAccelerometer(_ udev: OpaquePointer, _ device: OpaquePointer) -> Swift.Result<PlatformSensor?, Skip> {
        // The type is on the input device (inputN) and its event node both: the node is the sensor.
        guard let node = eventNode(device) else { return .success(nil) }
        let syspath = string(udev_device_get_syspath(device)) ?? node
        if let input = udev_device_get_parent(device), let owner = udev_device_get_parent(input),
           let ownerPath = string(udev_device_get_syspath(owner)), isJoypad(udev, ownerPath) {
            return .failure(Skip(reason: "part of a joypad (\(ownerPath) has a joystick)"))
        }
        var matrix = MountMatrix.identity
        if let text = property(device, "ACCEL_MOUNT_MATRIX") {
            do {
                matrix = try MountMatrix(parsing: text).proper
            } catch {
                return .failure(Skip(reason: "udev ACCEL_MOUNT_MATRIX '\(text)' does not parse: \(error)"))
            }
        }
        let location = property(device, "ACCEL_LOCATION").flatMap(SensorLocation.init(locationValue:)) ?? .display
        let scale = PhysicalConstants.standardGravity / PlatformSensor.inputCountsPerG
        return .success(PlatformSensor(
            kind: .accelerometer, access: .inputAccelerometer(node: node), syspath: syspath, name: name(device),
            conversion: SampleConversion(kind: .accelerometer, scale: Vector3(scale, scale, scale), mountMatrix: matrix),
            location: location))
    }

    /// Whether an input device below `owner` is a joystick.
    private static func isJoypad(_ udev: OpaquePointer, _ ownerPath: String) -> Bool {
        guard let owner = udev_device_new_from_syspath(udev, ownerPath) else { return false }
        defer { udev_device_unref(owner) }
        let found = devices(udev) { enumerate in
            udev_enumerate_add_match_parent(enumerate, owner)
            udev_enumerate_add_match_subsystem(enumerate, "input")
            udev_enumerate_add_match_property(enumerate, "ID_INPUT_JOYSTICK", "1")
        }
        found.forEach { udev_device_unref($0) }
        return !found.isEmpty
    }

    private static func inputProximity(_ device: OpaquePointer) -> PlatformSensor? {
        guard let node = eventNode(device), let input = udev_device_get_parent(device),
              let text = string(udev_device_get_sysattr_value(input, "capabilities/sw")),
              hasBit(EvdevDevice.frontProximity, inCapabilities: text) else { return nil }
        let syspath = string(udev_device_get_syspath(device)) ?? node
        return PlatformSensor(kind: .proximity, access: .inputProximity(node: node), syspath: syspath, name: name(device),
                              conversion: SampleConversion(kind: .proximity, scale: Vector3(1, 1, 1)), location: .display)
    }

    /// Whether bit `bit` is set in a sysfs capability bitmap: hexadecimal words of a `long`,
    /// separated by spaces, the most significant first (`10e00`, `0 1000000 0`).
    static func hasBit(_ bit: Int, inCapabilities text: String) -> Bool {
        let words = text.trimmingWhitespace().split(separator: " ").reversed().map { UInt64($0, radix: 16) }
        let wordBits = MemoryLayout<Int>.size * 8
        guard bit / wordBits < words.count, let word = words[bit / wordBits] else { return false }
        return word & (1 << UInt64(bit % wordBits)) != 0
    }
}
