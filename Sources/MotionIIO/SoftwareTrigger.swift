import Glibc

/// An `hrtimer` software trigger, made through configfs, that samples one device's buffer at a
/// set frequency: for a device that can buffer but has no trigger of its own, as a board's IMU
/// whose interrupt line is not wired (bmi160, ak8975, hmc5843 and bmc150_magn keep their buffer
/// then; inv_mpu6050 and st_lsm6dsx make none). Every scan then comes with the kernel's
/// timestamp, taken when the timer fires, instead of one sysfs read per channel stamped on
/// arrival.
///
/// Made by `mkdir /sys/kernel/config/iio/triggers/hrtimer/NAME` (Linux `industrialio-configfs`,
/// `industrialio-sw-trigger`, `iio-trig-hrtimer`: `CONFIG_IIO_CONFIGFS`, `CONFIG_IIO_SW_TRIGGER`,
/// `CONFIG_IIO_HRTIMER_TRIGGER`): the kernel registers a trigger device `triggerN` named NAME,
/// whose `sampling_frequency` (Hz, to the mHz; 100 at first) sets the timer; `rmdir` removes it.
/// NAME is `motiond-<device id>`, so a trigger a killed motiond left is found and used again.
/// Making one and setting its frequency need root, or the group write access udev's rule
/// (70-motiond.rules) gives group motiond on the configfs directory and on the new trigger.
struct SoftwareTrigger: Sendable, Equatable {
    /// Where the triggers are made and where their devices appear (another root in tests).
    struct Roots: Sendable, Equatable {
        /// The `hrtimer` type's configfs directory.
        var configfs = "/sys/kernel/config/iio/triggers/hrtimer"
        /// Where IIO devices and triggers appear.
        var devices = "/sys/bus/iio/devices"
    }

    /// The trigger's name, which a device's `trigger/current_trigger` takes.
    let name: String
    /// Its configfs directory.
    let directory: String
    /// Its trigger device's sysfs directory (`…/triggerN`).
    let device: String

    /// The name of the trigger motiond makes for a device.
    static func name(for deviceID: String) -> String { "motiond-\(deviceID)" }

    /// Why no software trigger can be made here, naming what is missing, or `nil` when one can.
    static func unavailable(_ roots: Roots = Roots()) -> String? {
        let hrtimer = roots.configfs
        if directoryExists(hrtimer) {
            guard access(hrtimer, W_OK | X_OK) == 0 else {
                return "no write access to \(hrtimer) (udev's rule 70-motiond.rules gives group motiond that when iio-trig-hrtimer loads)"
            }
            return nil
        }
        let triggers = parent(of: hrtimer), iio = parent(of: triggers), configfs = parent(of: iio)
        if directoryExists(triggers) {
            return "\(triggers) has no hrtimer: iio-trig-hrtimer is not loaded (kernel option CONFIG_IIO_HRTIMER_TRIGGER)"
        }
        if directoryExists(iio) {
            return "\(iio) has no triggers: industrialio-sw-trigger is not loaded (CONFIG_IIO_SW_TRIGGER)"
        }
        if directoryExists(configfs) {
            return "\(configfs) has no iio: configfs is not mounted there, or industrialio-configfs is not loaded (CONFIG_IIO_CONFIGFS)"
        }
        return "no \(configfs): the kernel has no configfs (CONFIG_CONFIGFS_FS)"
    }

    /// Makes the trigger for `deviceID` (or takes the one of that name already there) and waits up
    /// to `accessWait` seconds for its frequency to become writable (udev gives group motiond
    /// write access just after the trigger appears). A trigger this call made is removed again
    /// when anything after the `mkdir` fails.
    static func make(for deviceID: String, roots: Roots = Roots(), accessWait: Double = 2) throws(IIOError) -> SoftwareTrigger {
        let name = name(for: deviceID)
        let directory = "\(roots.configfs)/\(name)"
        var made = false
        if mkdir(directory, 0o755) == 0 {
            made = true
        } else if errno != EEXIST {
            throw IIOError(code: errno, operation: "make the hrtimer software trigger \(directory)")
        }
        func undo() { if made { rmdir(directory) } }
        guard let device = findDevice(named: name, in: roots.devices) else {
            undo()
            throw IIOError(code: ENODEV, operation: "find the trigger device of \(directory) among \(roots.devices)/trigger*")
        }
        let frequency = "\(device)/sampling_frequency"
        var waited = 0.0
        while access(frequency, W_OK) != 0 {
            guard errno == EACCES, waited < accessWait else {
                let code = errno
                undo()
                throw IIOError(code: code, operation: "write \(frequency)\(code == EACCES ? " (udev's rule 70-motiond.rules gives group motiond write access to it)" : "")")
            }
            usleep(10_000)
            waited += 0.01
        }
        return SoftwareTrigger(name: name, directory: directory, device: device)
    }

    /// Sets the timer to fire every `period` seconds (to the mHz the kernel takes).
    func setPeriod(_ period: Double) throws(IIOError) {
        let hertz = (1000 / period).rounded() / 1000
        try SysfsDirectory(path: device).write("sampling_frequency", SysfsNumber.format(hertz))
    }

    /// Detaches the trigger from `deviceID` when it is still that device's current trigger (a
    /// removed trigger must not stay attached), then removes it.
    func remove(from deviceID: String, roots: Roots = Roots()) throws(IIOError) {
        let consumer = SysfsDirectory(path: "\(roots.devices)/\(deviceID)")
        if (try? consumer.read("trigger/current_trigger")) == name {
            try consumer.write("trigger/current_trigger", "")
        }
        guard rmdir(directory) == 0 || errno == ENOENT else {
            throw IIOError(code: errno, operation: "remove the hrtimer software trigger \(directory)")
        }
    }

    /// The `triggerN` directory whose `name` is `name`.
    private static func findDevice(named name: String, in devices: String) -> String? {
        guard let entries = try? SysfsDirectory(path: devices).list("") else { return nil }
        for entry in entries where entry.hasPrefix("trigger") {
            let path = "\(devices)/\(entry)"
            if (try? SysfsDirectory(path: path).read("name")) == name { return path }
        }
        return nil
    }

    private static func directoryExists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
