import FoundationEssentials
import MotionCore

/// A request from a client: one JSON object per line with an `op` and, optionally, an integer
/// `id` the reply echoes. Unknown fields are ignored (a newer client may send more).
public enum ClientRequest: Sendable, Hashable {
    case subscribe(Subscription)
    case unsubscribe(id: Int?, stream: StreamName)
    /// The latest value of a stream (pull); `frame` for `deviceMotion`, `orientation` for
    /// `heading`.
    case get(id: Int?, stream: StreamName, frame: AttitudeReferenceFrame?, orientation: HeadingOrientation?)
    case status(id: Int?)

    /// What a `subscribe` asks for. A second `subscribe` to the same stream on the same
    /// connection replaces the first (as starting updates again does in Core Motion).
    public struct Subscription: Sendable, Hashable {
        public var id: Int?
        public var stream: StreamName
        /// Seconds between values for sample streams (default ``defaultInterval``); for event
        /// streams the accelerometer period their detectors want (default
        /// ``defaultDetectorInterval``). Shorter than ``Wire/minimumInterval`` is clamped.
        public var interval: Double?
        /// `deviceMotion` only; default `xArbitraryZVertical`, as in Core Motion.
        public var frame: AttitudeReferenceFrame?
        /// `heading` only: degrees the heading must change before the next update (default 1,
        /// as `CLLocationManager.headingFilter`; 0 sends every update).
        public var headingFilter: Double?
        /// `heading` only: which edge is "forward" (default portrait: the top edge).
        public var headingOrientation: HeadingOrientation?
        /// Event streams only: detector parameters to change from the daemon's, as the client
        /// sent them (a partial ``DetectorConfiguration``, e.g. `{"shake":{"threshold":1.5}}`).
        /// Their types and ranges are checked when the request is parsed; the daemon lays them
        /// over its own detector settings, which its configuration file may have changed.
        public var detectors: [String: JSONValue]?
        /// Sample streams only: seconds a value may wait so that values are delivered together,
        /// in batches, instead of one by one (beyond Core Motion: Android's maximum report
        /// latency). Nil (the wire's 0, the default) delivers each value at once; at most
        /// ``Wire/maximumLatency``.
        public var latency: Double?

        public init(id: Int? = nil, stream: StreamName, interval: Double? = nil, frame: AttitudeReferenceFrame? = nil,
                    headingFilter: Double? = nil, headingOrientation: HeadingOrientation? = nil, detectors: [String: JSONValue]? = nil,
                    latency: Double? = nil) {
            self.id = id
            self.stream = stream
            self.interval = interval
            self.frame = frame
            self.headingFilter = headingFilter
            self.headingOrientation = headingOrientation
            self.detectors = detectors
            self.latency = latency
        }
    }

    /// The update interval of a sample stream when a subscription names none, seconds.
    public static let defaultInterval = 0.1
    /// The accelerometer period detectors ask for when a subscription names none, seconds
    /// (50 Hz: the orientation detector's latency is ~3 periods plus its settle time).
    public static let defaultDetectorInterval = 0.02

    public var id: Int? {
        switch self {
        case .subscribe(let subscription): return subscription.id
        case .unsubscribe(let id, _), .get(let id, _, _, _), .status(let id): return id
        }
    }

    /// Parses one line (without its newline). Errors name the field and what was expected;
    /// `id` is recovered whenever the line is an object with an integer `id`, so the error
    /// reply can carry it (see ``requestID(inLine:)``).
    public init(line: some Collection<UInt8>) throws(ProtocolError) {
        let object = try JSONFields.object(line)
        let fields = JSONFields(object)
        let id = try fields.integer("id")
        guard let op = try fields.string("op") else { throw ProtocolError(.missingField, "op: every request needs an op") }
        switch op {
        case "subscribe":
            let stream = try fields.stream()
            var subscription = Subscription(id: id, stream: stream)
            if let interval = try fields.number("interval") {
                guard interval.isFinite, interval > 0, interval <= Wire.maximumInterval else {
                    throw ProtocolError(.invalidValue, "interval: \(interval) s is not between 0 and \(Wire.maximumInterval) s")
                }
                subscription.interval = interval
            }
            if stream == .deviceMotion { subscription.frame = try fields.frame() }
            if stream == .heading {
                if let filter = try fields.number("filter") {
                    guard filter.isFinite, filter >= 0, filter < 360 else {
                        throw ProtocolError(.invalidValue, "filter: \(filter)° is not between 0 and 360")
                    }
                    subscription.headingFilter = filter
                }
                subscription.headingOrientation = try fields.headingOrientation()
            }
            if stream.isDetectorStream, let options = try fields.nested("detectors") {
                _ = try DetectorConfiguration().overlaid(with: options.object)
                subscription.detectors = options.object
            }
            if let latency = try fields.number("latency") {
                guard stream.isSampleStream else {
                    throw ProtocolError(.invalidValue, "latency: \(stream) is not a sample stream; only these are batched: \(StreamName.sampleStreams.map(\.rawValue).joined(separator: ", "))")
                }
                guard latency.isFinite, latency >= 0, latency <= Wire.maximumLatency else {
                    throw ProtocolError(.invalidValue, "latency: \(latency) s is not between 0 and \(Wire.maximumLatency) s")
                }
                subscription.latency = latency > 0 ? latency : nil
            }
            self = .subscribe(subscription)
        case "unsubscribe":
            self = .unsubscribe(id: id, stream: try fields.stream())
        case "get":
            let stream = try fields.stream()
            self = .get(id: id, stream: stream, frame: stream == .deviceMotion ? try fields.frame() : nil,
                        orientation: stream == .heading ? try fields.headingOrientation() : nil)
        case "status":
            self = .status(id: id)
        default:
            throw ProtocolError(.unknownOp, "op \"\(op)\": expected subscribe, unsubscribe, get or status")
        }
    }

    /// The integer `id` of a line that is a JSON object, whatever else is wrong with it.
    public static func requestID(inLine line: some Collection<UInt8>) -> Int? {
        guard let object = try? JSONFields.object(line) else { return nil }
        return try? JSONFields(object).integer("id")
    }

    /// The request as one JSON line (without the newline), as a client sends it.
    public var json: String {
        var writer = JSONWriter()
        switch self {
        case .subscribe(let s):
            writer.field("op", "subscribe")
            writer.field("id", s.id)
            writer.field("stream", s.stream.rawValue)
            if let interval = s.interval { writer.field("interval", interval) }
            if let frame = s.frame { writer.field("frame", frame.description) }
            if let filter = s.headingFilter { writer.field("filter", filter) }
            if let orientation = s.headingOrientation { writer.field("orientation", orientation.rawValue) }
            if let detectors = s.detectors, let data = try? JSONEncoder().encode(JSONValue.object(detectors)) {
                writer.raw("detectors", String(decoding: data, as: UTF8.self))
            }
            if let latency = s.latency { writer.field("latency", latency) }
        case .unsubscribe(let id, let stream):
            writer.field("op", "unsubscribe")
            writer.field("id", id)
            writer.field("stream", stream.rawValue)
        case .get(let id, let stream, let frame, let orientation):
            writer.field("op", "get")
            writer.field("id", id)
            writer.field("stream", stream.rawValue)
            if let frame { writer.field("frame", frame.description) }
            if let orientation { writer.field("orientation", orientation.rawValue) }
        case .status(let id):
            writer.field("op", "status")
            writer.field("id", id)
        }
        return writer.finished
    }

}
