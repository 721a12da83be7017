import CUDev
import Glibc

/// udev's view of one IIO device: its properties (from the kernel uevent and udev rules and
/// hwdb, e.g. `ACCEL_MOUNT_MATRIX`, `ACCEL_LOCATION`).
public struct UdevDevice: Sendable {
    public let properties: [String: String]

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
    }
}
