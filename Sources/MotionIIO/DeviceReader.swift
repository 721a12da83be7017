import MotionCore

/// Reads the sensors of one IIO device and emits their samples; one per device in use.
protocol DeviceReader: AnyObject, Sendable {
    var mode: ReadMode { get }
    /// Starts delivering samples.
    func start()
    /// Stops reading and restores what it changed; returns once no more samples will be emitted.
    func stop()
}

/// Where readers send what they find; both closures hop to the right queue themselves.
struct ReaderOutput: Sendable {
    /// Delivers an event to the source's consumer.
    var emit: @Sendable (SourceEvent) -> Void
    /// Reports that the device stopped answering (removed, ENODEV, EIO).
    var lost: @Sendable (IIOError) -> Void
}

/// A failed read of one sensor.
enum ReadFault: Error, CustomStringConvertible {
    case io(IIOError)
    case unparseable(attribute: String, text: String)

    var description: String {
        switch self {
        case .io(let error): return error.description
        case .unparseable(let attribute, let text): return "\(attribute) has unparseable value '\(text)'"
        }
    }
}
