import CUInput
import Glibc

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
    init(path: String, on: Bool) throws(TabletModeSwitchError) {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw TabletModeSwitchError(what: "cannot open \(path)", code: errno) }
        let result = motiond_uinput_create_tablet_switch(fd, Self.name, on ? 1 : 0)
        guard result == 0 else {
            close(fd)
            throw TabletModeSwitchError(what: "cannot create an input device on \(path)", code: -result)
        }
        self.fd = fd
    }

    /// Reports tablet mode on or off.
    func report(_ on: Bool) throws(TabletModeSwitchError) {
        let result = motiond_uinput_report_tablet_mode(fd, on ? 1 : 0)
        guard result == 0 else { throw TabletModeSwitchError(what: "cannot report the tablet mode", code: -result) }
    }

    deinit {
        motiond_uinput_destroy(fd)
        close(fd)
    }
}

/// Why the tablet-mode switch could not be created or report: what was tried and the errno.
struct TabletModeSwitchError: Error, CustomStringConvertible {
    var what: String
    var code: Int32

    var description: String { "\(what): \(String(cString: strerror(code)))" }
}
