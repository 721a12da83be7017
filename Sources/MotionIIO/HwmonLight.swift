import Glibc
import MotionCore

/// A hwmon ambient-light sensor (applesmc): its `light` attribute `(left,right)`, read on every
/// tick and reported as iio-sensor-proxy does, the brighter channel as a percentage of its
/// range (``PlatformSensor/hwmonLightLevel(_:)``, unit `vendor`).
final class HwmonLight: PlatformReading {
    private let path: String

    init(directory: String) {
        path = "\(directory)/light"
    }

    func read() throws(ReadFault) -> Vector3? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(IIOError(code: errno, operation: "read \(path)")) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw .io(IIOError(code: errno, operation: "read \(path)")) }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        guard let level = PlatformSensor.hwmonLightLevel(text) else {
            throw .unparseable(attribute: path, text: text.trimmingWhitespace())
        }
        return Vector3(level, 0, 0)
    }
}
