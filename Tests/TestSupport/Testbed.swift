import CUMockdev
import Foundation

/// A libumockdev testbed owned by the test process: devices can be added, removed and announced
/// with uevents while a `motiond` child (started with the umockdev preload) runs against it.
/// umockdev keeps one testbed per process (`UMOCKDEV_DIR`), so suites using it are serialized.
final class Testbed {
    private let testbed: OpaquePointer
    let root: String

    init() {
        testbed = OpaquePointer(umockdev_testbed_new())
        let dir = umockdev_testbed_get_root_dir(UnsafeMutablePointer(testbed))!
        root = String(cString: dir)
        g_free(dir)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(testbed))
        unsetenv("UMOCKDEV_DIR")
    }

    /// Whether this process runs under the umockdev preload, which sending uevents needs
    /// (umockdev resolves the device through libudev in the sending process).
    static var canSendUevents: Bool {
        ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("libumockdev-preload") == true
    }

    /// Whether this process's own file accesses see a testbed it creates (the umockdev preload
    /// is on it), which tests driving MotionIIO in-process need.
    static var servesThisProcess: Bool { canSendUevents }

    private var pointer: UnsafeMutablePointer<UMockdevTestbed> { UnsafeMutablePointer(testbed) }

    /// Adds the devices of a `.umockdev` description.
    func add(_ description: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard umockdev_testbed_add_from_string(pointer, description, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestFailure("umockdev could not add devices: \(message)")
        }
    }

    /// Feeds a device node (`/dev/iio:device0`) from a umockdev script file.
    func loadScript(_ device: String, _ path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard umockdev_testbed_load_script(pointer, device, path, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestFailure("umockdev could not load the script: \(message)")
        }
    }

    /// Answers a device node's ioctls (`/dev/input/event7`) from a umockdev ioctl recording.
    func loadIoctl(_ device: String, _ path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard umockdev_testbed_load_ioctl(pointer, device, path, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestFailure("umockdev could not load the ioctl recording: \(message)")
        }
    }

    /// Feeds a device node's reads (`/dev/input/event3`) from an evemu `.events` file (`E: SECONDS
    /// TYPE CODE VALUE`, played from the node's first open on), beside a loaded ioctl recording.
    func loadEvemuEvents(_ device: String, _ path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard umockdev_testbed_load_evemu_events(pointer, device, path, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestFailure("umockdev could not load the evemu events: \(message)")
        }
    }

    /// Changes a sysfs attribute of a device while motiond runs.
    func setAttribute(_ syspath: String, _ name: String, _ value: String) {
        umockdev_testbed_set_attribute(pointer, syspath, name, value)
    }

    /// Sets a udev property of a device (what udev's rules and hwdb would give it).
    func setProperty(_ syspath: String, _ name: String, _ value: String) {
        umockdev_testbed_set_property(pointer, syspath, name, value)
    }

    /// Sends a uevent (`add`, `remove`, `change`) for a sysfs path such as `/sys/devices/…/iio:device1`.
    func uevent(_ syspath: String, _ action: String) {
        umockdev_testbed_uevent(pointer, syspath, action)
    }

    /// Removes a device's sysfs directory, links, device node and udev properties.
    func remove(_ syspath: String) {
        umockdev_testbed_remove_device(pointer, syspath)
    }

    /// Environment for a child process that should see this testbed instead of the real /sys.
    var environment: [String: String] {
        var env = RunningProcess.plainEnvironment
        env["LD_PRELOAD"] = "libumockdev-preload.so.0"
        env["UMOCKDEV_DIR"] = root
        return env
    }
}
