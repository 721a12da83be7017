import MotionCore

/// An input-subsystem accelerometer (lis3lv02d, hdaps-like laptop drivers): the current
/// `ABS_X`, `ABS_Y`, `ABS_Z` of its evdev node, read with `EVIOCGABS` on every tick, as
/// iio-sensor-proxy polls it (such drivers report changes as input events only when they move
/// by more than their fuzz, so the state is asked for, not waited for).
final class InputAccelerometer: PlatformReading {
    private let device: EvdevDevice

    init(device: EvdevDevice) {
        self.device = device
    }

    func read() throws(ReadFault) -> Vector3? {
        var raw = Vector3.zero
        for (index, axis) in EvdevDevice.axes.enumerated() {
            do {
                raw[index] = Double(try device.absoluteValue(axis))
            } catch {
                throw .io(error)
            }
        }
        return raw
    }
}
