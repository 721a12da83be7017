/// Where a motion sensor sits in a convertible: in the display (lid) or in the base.
///
/// Screen orientation and the attitude follow the display's sensors; the base's are read as
/// ``SensorKind/baseAccelerometer`` and ``SensorKind/baseGyroscope``, for the hinge angle.
/// Sources, in order (as iio-sensor-proxy): udev `ACCEL_LOCATION`, then the sysfs `label`
/// (`accel-display` / `accel-base`), then the sysfs `location` (cros-ec: `lid`, `base`),
/// else `display`.
public enum SensorLocation: String, Sendable, Hashable, Codable, CaseIterable {
    case display
    case base

    /// Parses a location value (`display`, `lid` → display; `base` → base); `nil` otherwise.
    public init?(locationValue text: String) {
        switch text.trimmingWhitespace().lowercased() {
        case "display", "lid": self = .display
        case "base": self = .base
        default: return nil
        }
    }

    /// Parses a standard label (`accel-display`, `accel-base`); `nil` for other labels.
    public init?(label: String) {
        switch label.trimmingWhitespace().lowercased() {
        case "accel-display": self = .display
        case "accel-base": self = .base
        default: return nil
        }
    }
}
