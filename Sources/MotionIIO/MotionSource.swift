import Dispatch
import MotionCore

/// A producer of samples: IIO hardware (`local:`, `ip:HOST`), the simulated IMU (`sim:`) or a
/// trace (`replay:FILE.csv`). The pipeline sees them all through this one interface.
///
/// Events are delivered with `queue.async` on the queue given to `start` (the pipeline's serial
/// queue), so the handler never runs concurrently with itself. Samples of one sensor arrive in
/// timestamp order.
public protocol MotionSource: AnyObject, Sendable {
    /// The URI the source was made from.
    var uri: String { get }

    /// Starts reading what `request` asks for. Throws for a request outside the supported
    /// periods or a source that cannot be opened at all (a missing sensor is not an error: it
    /// is reported as unavailable and picked up when it appears).
    func start(_ request: SourceRequest, queue: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError)

    /// Changes what is read while running; sensors no longer requested are powered down.
    func update(_ request: SourceRequest) throws(SourceError)

    /// Stops reading and releases the hardware (buffers disabled, triggers detached); waits
    /// until no reader runs any more. Nothing is queued for the handler after `stop` returns
    /// (events queued before may still run).
    func stop()
}

public typealias SourceHandler = @Sendable (SourceEvent) -> Void

/// What a source reports.
public enum SourceEvent: Sendable {
    /// One reading.
    case sample(Sample)
    /// A sensor became available or unavailable (unplugged, read errors, not found).
    case availability(SensorKind, SensorAvailability)
}

/// Whether a sensor is being read, and a sentence saying why or why not.
public struct SensorAvailability: Sendable, Hashable {
    public var isAvailable: Bool
    /// E.g. `reading iio:device0 (mpu6050), buffered` or `iio:device0 (mpu6050) was removed`.
    public var reason: String
    /// How it is read while available.
    public var mode: ReadMode?

    public init(isAvailable: Bool, reason: String, mode: ReadMode? = nil) {
        self.isAvailable = isAvailable
        self.reason = reason
        self.mode = mode
    }
}

/// Which sensors to read and at what period (seconds between samples).
public struct SourceRequest: Sendable, Hashable {
    /// The supported sample periods: 10–100 ms.
    public static let periodRange: ClosedRange<Double> = 0.01...0.1

    public private(set) var periods: [SensorKind: Double]

    /// Validates every period; a period outside 10–100 ms is an error, never silently clamped.
    public init(_ periods: [SensorKind: Double]) throws(SourceError) {
        for (kind, period) in periods.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !(Self.periodRange.contains(period)) {
            throw .invalidPeriod(kind: kind, period: period)
        }
        self.periods = periods
    }

    /// The same period for several kinds.
    public init(_ kinds: some Sequence<SensorKind>, period: Double) throws(SourceError) {
        try self.init(Dictionary(kinds.map { ($0, period) }, uniquingKeysWith: { first, _ in first }))
    }

    public static let none = try! SourceRequest([:])
}
