import CUDev
import Dispatch
import Glibc
import MotionSync

/// Watches udev for IIO devices being added or removed and reports each event on a queue.
///
/// It listens on the udev netlink group (events after udev rules ran, so hwdb properties are in
/// place), filtered to the `iio` subsystem.
public final class HotplugMonitor: Sendable {
    /// One uevent: `add`, `remove`, `change`, … for a device such as `iio:device0`.
    public struct Event: Sendable {
        public var action: String
        public var sysname: String
    }

    /// Behind a lock only because Dispatch's source protocols are not `Sendable` on Linux; it
    /// is touched once more, to cancel it in `deinit`.
    private let source: Lock<any DispatchSourceRead>

    /// Starts monitoring; `handler` runs on `queue`. Returns `nil` when udev is unavailable
    /// (no netlink, e.g. inside some containers): hot-plug then relies on rescans.
    public init?(queue: DispatchQueue, handler: @escaping @Sendable (Event) -> Void) {
        guard let udev = udev_new() else { return nil }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            return nil
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        guard udev_monitor_enable_receiving(monitor) >= 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            return nil
        }
        let fd = udev_monitor_get_fd(monitor)
        // The udev handles are used only by the source's handlers, which Dispatch runs one at a
        // time on `queue` (the cancel handler last).
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            while let device = udev_monitor_receive_device(monitor) {
                defer { udev_device_unref(device) }
                guard let action = udev_device_get_action(device), let name = udev_device_get_sysname(device) else { continue }
                handler(Event(action: String(cString: action), sysname: String(cString: name)))
            }
        }
        // The netlink socket may close only once Dispatch has let go of its descriptor.
        source.setCancelHandler {
            udev_monitor_unref(monitor)
            udev_unref(udev)
        }
        source.resume()
        self.source = Lock(source)
    }

    deinit {
        source.withLock { $0.cancel() }
    }
}
