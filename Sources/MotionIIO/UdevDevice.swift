import CUDev
import Glibc

/// udev's view of one IIO device: its properties (from the kernel uevent and udev rules and
/// hwdb, e.g. `ACCEL_MOUNT_MATRIX`, `ACCEL_LOCATION`).
public struct UdevDevice: Sendable {
    public let properties: [String: String]
    /// Whether udev has a database entry for the device, which it writes once its rules have
    /// run: before that the hwdb properties are missing and the device node keeps the kernel's
    /// root-only permissions.
    public let isInitialized: Bool

    /// Looks up `iio:deviceN` in the udev database; `nil` when udev does not know it.
    public init?(iioDevice sysname: String) {
        guard let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let device = udev_device_new_from_subsystem_sysname(udev, "iio", sysname) else { return nil }
        defer { udev_device_unref(device) }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current), let value = udev_list_entry_get_value(current) {
                properties[String(cString: name)] = String(cString: value)
            }
            entry = udev_list_entry_get_next(current)
        }
        self.properties = properties
        isInitialized = udev_device_get_is_initialized(device) > 0
    }

    /// Whether udevd is running (its control socket exists) and has events queued, so a device
    /// without a database entry may be one it has not got to yet. (A device udev is done with
    /// may have no entry either: one without a device node, properties or tags.)
    public static var isDaemonBusy: Bool {
        guard let udev = udev_new() else { return false }
        defer { udev_unref(udev) }
        guard let queue = udev_queue_new(udev) else { return false }
        defer { udev_queue_unref(queue) }
        return udev_queue_get_udev_is_active(queue) > 0 && udev_queue_get_queue_is_empty(queue) == 0
    }
}
