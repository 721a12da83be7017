import Dispatch
import MotionCore

/// A producer of samples: IIO hardware (`local:`, `ip:HOST`), the simulated IMU (`sim:`) or a
/// trace (`replay:FILE.csv`). The pipeline sees them all through this one interface.
///
/// Events are delivered in bursts — what one wake-up of the source found (a timer tick's
/// readings, a buffer refill's scans) — one handler call per burst, always on the queue given to
/// `start` (the pipeline's serial queue), so the handler never runs concurrently with itself.
/// Sources that read on a thread of their own submit with `queue.sync`: the handler then runs
/// on the reading thread (no thread hop, one wake-up per burst) while the queue excludes
/// everything else. Samples of one sensor arrive in timestamp order.
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

/// Takes one burst of events, in order.
public typealias SourceHandler = @Sendable ([SourceEvent]) -> Void

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
    /// Where the sensor sits, when the source knows (an IIO sensor while available).
    public var location: SensorLocation?
    /// Seconds between the samples the sensor delivers, when the source knows it (a device read
    /// through its buffer delivers every scan, at the frequency its driver allows, e.g. 52 Hz
    /// for the 50 asked); `nil`: the period asked for.
    public var period: Double?
    /// The unit of the sensor's values when it is not its kind's (``SensorKind/unit``): `vendor`
    /// for a hwmon light sensor (``PlatformSensor``).
    public var unit: String?
    /// Whether the sensor's chip reports the specific force, read with its z negated
    /// (``SensorDescriptor/MountMatrixChoice/specificForce``).
    public var specificForce: Bool

    public init(isAvailable: Bool, reason: String, mode: ReadMode? = nil, location: SensorLocation? = nil, period: Double? = nil,
                unit: String? = nil, specificForce: Bool = false) {
        self.isAvailable = isAvailable
        self.reason = reason
        self.mode = mode
        self.location = location
        self.period = period
        self.unit = unit
        self.specificForce = specificForce
    }
}

/// Which sensors to read and at what period (seconds between samples), and how long each may
/// wait before its readings are delivered.
public struct SourceRequest: Sendable, Hashable {
    /// The supported sample periods: 10–100 ms.
    public static let periodRange: ClosedRange<Double> = 0.01...0.1
    /// The supported wake intervals: up to 10 s.
    public static let wakeIntervalRange: ClosedRange<Double> = 0.01...10
    /// Seconds between the readings of a polled device at the rest rate that sleeps on its own
    /// motion events (docs/SENSORS.md "Rest rate"): longer than any wake interval may make them.
    public static let restEventCheck = 5.0

    public private(set) var periods: [SensorKind: Double]
    /// Per kind, the longest the source may sleep before it delivers that kind's readings
    /// (seconds, longer than its period; absent: every period). A polled sensor is then read
    /// only that often — one reading per wake-up, the rest rate of a device lying still — and
    /// a buffered one may deliver its scans in batches that long.
    public var wakeIntervals: [SensorKind: Double] = [:] {
        didSet { wakeIntervals = valid(wakeIntervals) }
    }
    /// Per kind, how late its readings may be delivered, every one of them still delivered
    /// (seconds, longer than its period; absent: at once) — clients that batch (a
    /// subscription's `latency`). A buffered device then delivers its scans in batches, the
    /// simulated IMU that often; a polled device is still read every period (a reading not
    /// taken is a reading lost).
    public var latencies: [SensorKind: Double] = [:] {
        didSet { latencies = valid(latencies) }
    }

    /// Only requested kinds, longer than their period, at most ``wakeIntervalRange``'s upper
    /// bound.
    private func valid(_ intervals: [SensorKind: Double]) -> [SensorKind: Double] {
        intervals.filter { kind, interval in
            periods[kind].map { interval > $0 } ?? false
        }.mapValues { min($0, Self.wakeIntervalRange.upperBound) }
    }

    /// Seconds between readings of `kind` on a polled device: its wake interval, else its
    /// period.
    public func wakeInterval(_ kind: SensorKind) -> Double? {
        wakeIntervals[kind] ?? periods[kind]
    }

    /// Seconds between deliveries of `kind` from a source that keeps every reading (a
    /// buffer, the simulated IMU): the longer of its wake interval and its latency.
    public func batchInterval(_ kind: SensorKind) -> Double? {
        periods[kind].map { max(wakeIntervals[kind] ?? $0, latencies[kind] ?? $0) }
    }

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
