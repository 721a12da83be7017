/// How a sensor's values are read.
public enum ReadMode: String, Sendable, Hashable, Codable {
    /// A timer reads the `_raw` sysfs attributes each period and stamps them with CLOCK_BOOTTIME.
    case polling
    /// The kernel buffer (`/dev/iio:deviceN`) delivers every scan with its kernel timestamp.
    case buffered
}
