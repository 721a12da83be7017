import MotionCore
import MotionProtocol

/// One client's subscription to one stream, as granted: the interval after clamping and the
/// per-stream options with their defaults filled in. Lives on the pipeline queue.
struct Subscription: Sendable {
    let stream: StreamName
    /// Seconds between values (sample streams), or the accelerometer period the detectors
    /// want (event streams). Never below ``Wire/minimumInterval``.
    let interval: Double
    /// The hardware period it asks of its sensors, seconds (10–100 ms).
    let period: Double
    /// `deviceMotion`: the reference frame.
    let frame: AttitudeReferenceFrame
    /// `deviceMotion` in an arbitrary frame: where its X axis was fixed, taken at the first
    /// value after the subscription started (Core Motion fixes the frame at start).
    var anchor: FrameAnchor?
    /// `heading`: the edge that counts as forward, and the minimum change between updates.
    let headingOrientation: HeadingOrientation
    var headingFilter: HeadingFilter
    /// Event streams: the detector parameters the client changed (nil: none).
    let detectorOptions: [String: JSONValue]?
    /// Event streams: the detector parameters, the daemon's with the client's changes laid over
    /// them (again when a configuration reload changes the daemon's).
    var detectors: DetectorConfiguration
    var decimator: Decimator
    /// The sensors it keeps running.
    let kinds: Set<SensorKind>
    /// `deviceMotion`: why the latest value could not be given, if it could not.
    var unavailable: DeviceMotionUnavailable?
    /// Sample streams: seconds a value may be held so values leave together (0: each at once).
    /// The ``Publisher`` holds them in a ``Batch``.
    let latency: Double

    /// How many of its batched values the client's send queue keeps: room for two batches. A
    /// batch holds the values of less than ``latency`` seconds, which decimation (a value at
    /// most half a period early, an interval apart on average) spaces into at most
    /// ⌈latency / interval⌉ + 1; one more each for rounding.
    var batchCapacity: Int {
        2 * (Int((latency / interval).rounded(.up)) + 2)
    }

    /// Throws `invalidValue` when the client's detector options do not fit the parameters.
    init(_ request: ClientRequest.Subscription, defaultDetectors: DetectorConfiguration) throws(ProtocolError) {
        self.init(request, detectors: try Self.detectors(request.detectors, over: defaultDetectors))
    }

    private init(_ request: ClientRequest.Subscription, detectors: DetectorConfiguration) {
        stream = request.stream
        let wanted = request.interval ?? (stream.isDetectorStream ? ClientRequest.defaultDetectorInterval : ClientRequest.defaultInterval)
        // Event streams ask for a hardware period; sample streams may be slower than any
        // hardware period (served by decimation).
        interval = stream.isDetectorStream ? SensorDemand.period(for: wanted) : max(wanted, stream.minimumInterval)
        period = SensorDemand.period(for: interval)
        frame = request.frame ?? .xArbitraryZVertical
        headingOrientation = request.headingOrientation ?? .portrait
        headingFilter = HeadingFilter(minimumChange: request.headingFilter ?? 1)
        detectorOptions = request.detectors
        self.detectors = detectors
        decimator = Decimator(interval: interval)
        kinds = SensorDemand.kinds(for: stream, frame: frame)
        latency = stream.isSampleStream ? request.latency ?? 0 : 0
    }

    /// The daemon's own printing: every value (no decimation) from sensors run at `period`.
    init(local stream: StreamName, frame: AttitudeReferenceFrame?, period: Double, detectors: DetectorConfiguration) {
        self.init(ClientRequest.Subscription(stream: stream, interval: period, frame: frame), detectors: detectors)
        decimator = Decimator(interval: 0)
    }

    /// `options` laid over `defaults`, every parameter within its range.
    static func detectors(_ options: [String: JSONValue]?, over defaults: DetectorConfiguration) throws(ProtocolError) -> DetectorConfiguration {
        guard let options else { return defaults }
        return try defaults.overlaid(with: options)
    }
}
