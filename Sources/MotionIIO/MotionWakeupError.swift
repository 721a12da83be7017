/// Why a device cannot wake motiond on motion, or what went wrong while it was armed. Each
/// sentence names the device and what is missing, so the caller can log it and fall back to
/// slow polling.
public enum MotionWakeupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device is not on this machine: events need its sysfs and `/dev/iio:deviceN`.
    case notLocal(device: String)
    /// No `events/` directory, or nothing in it that reports motion; `found` lists what the
    /// directory holds (empty when it is missing).
    case noMotionEvents(device: String, found: [String])
    /// The event's threshold has no scale: neither `events/in_accel_scale` nor a channel scale.
    case noScale(device: String, event: String)
    /// `/dev/iio:deviceN` could not be opened or refused `IIO_GET_EVENT_FD_IOCTL`.
    case eventDescriptor(device: String, IIOError)
    /// An event attribute could not be read or written while arming; whatever had been changed
    /// was put back.
    case attribute(device: String, IIOError)
    /// Reading or waiting on the event descriptor failed.
    case read(device: String, IIOError)
    /// Some attributes could not be put back when disarming (the others were).
    case restore(device: String, [IIOError])

    public var description: String {
        switch self {
        case .notLocal(let device):
            return "\(device) is not on this machine: motion events need its sysfs events/ directory and /dev node"
        case .noMotionEvents(let device, let found):
            if found.isEmpty { return "\(device) has no events/ directory: the driver offers no motion events" }
            return "\(device) offers no motion event in events/ (rising or either thresh, mag, roc on accel); it has \(found.joined(separator: ", "))"
        case .noScale(let device, let event):
            return "\(device) gives no scale for the threshold of events/\(event) (no events/in_accel_scale, no in_accel scale)"
        case .eventDescriptor(let device, let error):
            return "\(device) gives no event descriptor: \(error)"
        case .attribute(let device, let error):
            return "cannot arm the motion events of \(device): \(error)"
        case .read(let device, let error):
            return "cannot read the motion events of \(device): \(error)"
        case .restore(let device, let errors):
            return "\(device): \(errors.count) event attribute(s) not restored: \(errors.map(\.description).joined(separator: "; "))"
        }
    }
}
