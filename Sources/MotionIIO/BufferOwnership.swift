import Glibc

/// Who holds a device's kernel buffer, decided before motiond touches it.
///
/// `buffer/enable` = 1 alone does not mean another program is reading: a process killed before
/// its teardown (SIGKILL, the OOM killer) leaves the buffer enabled with nobody attached. The
/// character device is single-open, so on this machine an `open()` of `/dev/iio:deviceN` tells
/// the two apart: EBUSY means held, success means abandoned (and safe to take over).
enum BufferOwnership: Equatable {
    /// Not enabled: ours to use.
    case free
    /// Enabled, but nobody has the character device open.
    case abandoned
    /// In use by another program; the sentence says how we know.
    case held(String)

    static func check(_ device: IIODevice) -> BufferOwnership {
        guard (try? device.readBuffer("enable")) == "1" else { return .free }
        guard device.context.isLocal else {
            return .held("buffer/enable is 1 on the remote device")
        }
        let fd = open("/dev/\(device.id)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            return .abandoned
        }
        if errno == EBUSY { return .held("/dev/\(device.id) is open in another process") }
        return .held("buffer/enable is 1 and /dev/\(device.id) cannot be opened: \(String(cString: strerror(errno)))")
    }
}
