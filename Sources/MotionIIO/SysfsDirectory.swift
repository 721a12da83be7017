import Glibc

/// One IIO device's sysfs directory (`/sys/bus/iio/devices/iio:deviceN`), read and written
/// file by file for what libiio 0.24 does not reach: the `events/` directory, which its local
/// backend neither lists nor names, and triggers made after its context (``SoftwareTrigger``).
///
/// Values are read whole, trimmed of white space and of the NUL that libiio's own writes leave
/// behind; they are written the way `echo` writes them (truncating, with a newline), which
/// every kernel parser accepts.
struct SysfsDirectory: Sendable {
    /// The directory, e.g. `/sys/bus/iio/devices/iio:device0`.
    let path: String

    init(device: IIODevice) {
        path = "/sys/bus/iio/devices/\(device.id)"
    }

    /// Any sysfs directory, e.g. a trigger's.
    init(path: String) {
        self.path = path
    }

    /// The names in a subdirectory (`events`); throws ENOENT when there is none.
    func list(_ directory: String) throws(IIOError) -> [String] {
        guard let handle = opendir("\(path)/\(directory)") else {
            throw IIOError(code: errno, operation: "list \(path)/\(directory)")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether the device's directory is still there (a removed device's goes with it).
    var exists: Bool {
        access(path, F_OK) == 0
    }

    /// Whether the device is a HID sensor hub's (its real directory lies under a
    /// `HID-SENSOR-…` platform device): such a hub may stamp its reports on its own clock.
    var isHIDSensor: Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        return String(cString: resolved).contains("/HID-SENSOR-")
    }

    /// Whether a file exists.
    func contains(_ file: String) -> Bool {
        access("\(path)/\(file)", F_OK) == 0
    }

    /// A file's text, trimmed.
    func read(_ file: String) throws(IIOError) -> String {
        let fd = open("\(path)/\(file)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IIOError(code: errno, operation: "read \(path)/\(file)") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { throw IIOError(code: errno, operation: "read \(path)/\(file)") }
        return Self.text(bytes.prefix(n))
    }

    /// A value as read from a sysfs file: up to the first NUL, trimmed.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self).trimmingWhitespace()
    }

    /// Writes `value` and a newline.
    func write(_ file: String, _ value: String) throws(IIOError) {
        let fd = open("\(path)/\(file)", O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw IIOError(code: errno, operation: "write '\(value)' to \(path)/\(file)") }
        defer { close(fd) }
        let line = Array("\(value)\n".utf8)
        let n = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == line.count else { throw IIOError(code: n < 0 ? errno : EIO, operation: "write '\(value)' to \(path)/\(file)") }
    }
}
