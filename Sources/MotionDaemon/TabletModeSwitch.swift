import CUInput
import Glibc
import MotionSync

/// The input device motiond creates through uinput so the desktop has a tablet-mode switch
/// (`EV_SW`/`SW_TABLET_MODE`, as a convertible's firmware gives one through `intel-vbtn` or
/// `intel-hid`): libinput then turns the internal keyboard and touchpad off while it is on, and
/// GNOME and KDE switch to their tablet UI, unchanged. The device goes when the value is
/// released. Immutable after creation; its one owner (``TabletModeBridge``) serialises reports.
final class TabletModeSwitch: Sendable {
    /// The device's name, as `libinput list-devices` and `/proc/bus/input/devices` show it.
    static let name = "motiond tablet mode switch"

    private let fd: Int32

    /// Creates the device on the uinput node at `path` (normally `/dev/uinput`), reporting
    /// tablet mode `on` from the start.
    init(path: String, on: Bool) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError.last("cannot open \(path)") }
        let result = motiond_uinput_create_tablet_switch(fd, Self.name, on ? 1 : 0)
        guard result == 0 else {
            close(fd)
            throw SystemError(-result, "cannot create an input device on \(path)")
        }
        self.fd = fd
    }

    /// Reports tablet mode on or off.
    func report(_ on: Bool) throws(SystemError) {
        let result = motiond_uinput_report_tablet_mode(fd, on ? 1 : 0)
        guard result == 0 else { throw SystemError(-result, "cannot report the tablet mode") }
    }

    deinit {
        motiond_uinput_destroy(fd)
        close(fd)
    }
}
