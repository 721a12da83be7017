import MotionCore
import MotionSync

/// Reads the sensors of one IIO device and emits their samples; one per device in use.
protocol DeviceReader: AnyObject, Sendable {
    var mode: ReadMode { get }
    /// Starts delivering samples; throws when the system has no thread to read on (the reader
    /// then holds nothing: its buffer is released, and ``stop()`` returns at once).
    func start() throws(SystemError)
    /// From now on, a polled reader reads every `read` seconds (``SourceRequest/wakeIntervals``),
    /// a reader that keeps every reading delivers every `deliver` seconds
    /// (``SourceRequest/batchInterval(_:)``); false when this reader cannot change that while
    /// running (it must be replaced).
    func retime(read: Double, deliver: Double) -> Bool
    /// Stops reading: the buffer, channels and any trigger it attached are released (a sampling
    /// frequency or timestamp clock it set stays). Returns once no more samples will be emitted.
    func stop()
}

extension DeviceReader {
    /// How long a device may fail continuously (errors or no data) before it counts as lost,
    /// so a rescan reopens it (and a dead iiod connection is replaced).
    static var lossAfter: Double { 5 }
}

/// Where readers send what they find; both closures hop to the right queue themselves.
struct ReaderOutput: Sendable {
    /// Delivers a burst of events (one wake-up's worth) to the source's consumer, on the
    /// consumer's queue, before it returns; an empty burst is not delivered.
    var emit: @Sendable ([SourceEvent]) -> Void
    /// Reports, with the reason, that the device stopped answering: removed (ENODEV, EIO), or
    /// failing for ``DeviceReader/lossAfter`` seconds.
    var lost: @Sendable (String) -> Void
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
