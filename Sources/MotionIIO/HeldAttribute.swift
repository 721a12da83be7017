import Glibc

/// One sysfs attribute of a local IIO device (`in_accel_x_raw`) kept open and re-read with
/// `pread` at offset 0, which makes sysfs produce the value afresh: one system call a reading
/// instead of libiio's open, fstat, read and close (a still device is read a few times a
/// second for as long as it rests).
///
/// A file replaced under the open descriptor (umockdev's test beds, and the power bench, rewrite
/// an attribute with a new file and a rename; sysfs never does) is noticed by its link count
/// falling to 0 and opened again by name, so such a change is read at the reading it is made
/// before. A failed read closes the descriptor: the next one opens the file again (or reports
/// that the device is gone).
///
/// Not Sendable: it owns a descriptor. One reader's thread reads it (``PollingReader`` keeps
/// its attributes in its lock-confined state).
final class HeldAttribute {
    /// The file, e.g. `/sys/bus/iio/devices/iio:device0/in_accel_x_raw`.
    let path: String
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 128)

    init(path: String) {
        self.path = path
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// The attribute's bytes now, as read (``SysfsNumber/parse(bytes:)`` reads a number from
    /// them, ``SysfsDirectory/text(_:)`` the text).
    func read() throws(IIOError) -> ArraySlice<UInt8> {
        if fd >= 0 {
            var status = stat()
            if fstat(fd, &status) != 0 || status.st_nlink == 0 { reset() }
        }
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw IIOError(code: errno, operation: "read \(path)") }
        }
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else {
            let code = errno
            reset()
            throw IIOError(code: code, operation: "read \(path)")
        }
        return buffer.prefix(count)
    }

    private func reset() {
        close(fd)
        fd = -1
    }
}
