import Glibc
import Testing
@testable import MotionIIO

/// A sysfs attribute held open: re-read in place, a replaced file noticed and opened again by
/// name, a removed one reported as the device gone. Ordinary files in a temporary directory
/// stand in for sysfs (sysfs regenerates the value at offset 0; a file simply holds it).
@Suite("HeldAttribute")
struct HeldAttributeTests {
    /// A fresh directory under /tmp, removed with its files by `remove`.
    struct Directory {
        let path: String
        init() throws {
            var template = Array("/tmp/held-attribute-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw IIOError(code: errno, operation: "mkdtemp") }
            path = String(cString: made)
        }

        func write(_ name: String, _ text: String) {
            let fd = open("\(path)/\(name)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }

        /// As umockdev and the power bench change an attribute: a new file renamed over it.
        func replace(_ name: String, _ text: String) {
            write(".\(name).new", text)
            rename("\(path)/.\(name).new", "\(path)/\(name)")
        }

        func remove() {
            for name in ["in_accel_x_raw"] { unlink("\(path)/\(name)") }
            rmdir(path)
        }
    }

    @Test("re-read in place, a file renamed over it is read at the next reading, a removed one is the device gone")
    func rereads() throws {
        let directory = try Directory()
        defer { directory.remove() }
        directory.write("in_accel_x_raw", "12\n")
        let attribute = HeldAttribute(path: "\(directory.path)/in_accel_x_raw")
        #expect(SysfsDirectory.text(try attribute.read()) == "12")
        directory.write("in_accel_x_raw", "-340\n")
        #expect(SysfsDirectory.text(try attribute.read()) == "-340", "written in place: the held descriptor reads it")
        directory.replace("in_accel_x_raw", "256\n")
        #expect(SysfsDirectory.text(try attribute.read()) == "256", "replaced: opened again by name")
        #expect(SysfsDirectory.text(try attribute.read()) == "256")
        unlink("\(directory.path)/in_accel_x_raw")
        #expect {
            try attribute.read()
        } throws: { error in
            (error as? IIOError)?.isDeviceGone == true
        }
        directory.write("in_accel_x_raw", "7\n")
        #expect(SysfsDirectory.text(try attribute.read()) == "7", "a file that comes back is read again")
    }

}
