import Glibc
import MotionSync

/// Who holds a device's kernel buffer, decided before motiond touches it.
///
/// `buffer/enable` = 1 alone does not mean another program is reading: a process killed before
/// its teardown (SIGKILL, the OOM killer) leaves the buffer enabled with nobody attached. The
/// character device is single-open, so on this machine an `open()` of `/dev/iio:deviceN` tells
/// EBUSY: held. Success is not enough: iio-sensor-proxy enables its buffers when it starts,
/// claimed or not, and opens the device only for each read (every 700 ms), so its buffer opens
/// fine almost all the time (the system tier showed motiond taking it over and the peer's
/// orientation going silent). What a killed motiond leaves is told by the clock: motiond sets
/// `current_timestamp_clock` to `boottime` while it reads (the kernel's default is `realtime`)
/// and puts it back when it stops. So an enabled buffer that opens is taken over with the clock
/// at `boottime`, or when iio-sensor-proxy is known not to run (``SensorProxyPresence``: it left
/// it enabled when it stopped, as it does at a package swap); any other is another program's,
/// and the device is polled.
enum BufferOwnership: Equatable {
    /// Not enabled: ours to use.
    case free
    /// Enabled by a program that is gone (a motiond: its clock; iio-sensor-proxy: it does not
    /// run) and nobody has the character device open; the sentence says who.
    case abandoned(String)
    /// In use by another program; the sentence says how we know.
    case held(String)

    static func check(_ device: IIODevice, sensorProxy: () -> SensorProxyPresence) -> BufferOwnership {
        guard (try? device.readBuffer("enable")) == "1" else { return .free }
        guard device.context.isLocal else {
            return .held("buffer/enable is 1 on the remote device")
        }
        let fd = open("/dev/\(device.id)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            if (try? device.read("current_timestamp_clock")) == "boottime" { return .abandoned("by a motiond that is gone (the boottime clock it sets while reading)") }
            switch sensorProxy() {
            case .gone(let how):
                return .abandoned("by iio-sensor-proxy, which has stopped (\(how))")
            case .running(let how), .unknown(let how):
                return .held("buffer/enable is 1, /dev/\(device.id) opens and current_timestamp_clock is not the boottime a killed motiond leaves: another program keeps it enabled and opens it only to read, as iio-sensor-proxy does (\(how))")
            }
        }
        if errno == EBUSY { return .held("/dev/\(device.id) is open in another process") }
        return .held("buffer/enable is 1 and /dev/\(device.id) cannot be opened: \(SystemError.last())")
    }
}
