import MotionCore

/// A line the daemon sends: the hello, replies, and pushed values of the streams.
/// ``line`` is its JSON text in the shapes of docs/PROTOCOL.md (without the newline).
public indirect enum ServerMessage: Sendable, Equatable {
    case hello(Hello)
    /// The answer to a request, carrying its `id` (null when the request had none or could not
    /// be parsed far enough to find it).
    case reply(id: Int?, Result<Reply, ProtocolError>)
    /// A raw reading: `accelerometer`, `gyro`, `magnetometer`, `light`, `baseAccelerometer` or
    /// `baseGyro`.
    case sample(Sample)
    case deviceMotion(DeviceMotion)
    /// A compass reading for the subscription's edge; `topEdge` is the heading of the top edge
    /// (+y), which every heading message carries as `heading`.
    case heading(Heading, orientation: HeadingOrientation, topEdge: Double)
    /// A convertible's hinge angle.
    case hinge(HingeAngle)
    /// An orientation change, shake phase or gesture.
    case event(MotionEvent)
    /// Something came near the proximity sensor or went away.
    case proximity(Proximity)
    case availability(SensorKind, SensorState)
    case calibration(accuracy: MagneticFieldCalibrationAccuracy, calibrationNeeded: Bool)
    /// Values of `stream` this client did not read in time and lost; `total` since it
    /// connected.
    case dropped(stream: StreamName, count: Int, total: Int)
    /// The daemon is closing this connection (stopping, or the client misbehaved).
    case goodbye(reason: String)

    /// What a successful reply carries.
    public enum Reply: Sendable, Equatable {
        /// `subscribe`: the interval granted (after clamping), whether everything the
        /// stream needs is available now (if not, values start when it appears), and the
        /// batching latency granted (0: values one by one; sent only when above 0, so a client
        /// sees whether the daemon batches at all).
        case subscribed(interval: Double, available: Bool, latency: Double = 0)
        case unsubscribed
        /// `get`: the latest value, in the shape it is pushed in, and its `age`: seconds from its
        /// `timestamp` to the reply, on the boot clock (nil for a value without a timestamp).
        case value(ServerMessage, age: Double? = nil)
        case status(DaemonStatus)
    }

    /// The stream a pushed message belongs to (nil for hello, replies, drops and goodbye).
    public var stream: StreamName? {
        switch self {
        case .sample(let sample): return StreamName(sample.kind)
        case .deviceMotion: return .deviceMotion
        case .heading: return .heading
        case .hinge: return .hinge
        case .event(.posture): return .posture
        case .event(.orientation): return .orientation
        case .event(.tilt): return .tilt
        case .event(.shake): return .shake
        case .event(.gesture): return .gesture
        case .proximity: return .proximity
        case .availability: return .availability
        case .calibration: return .calibration
        case .hello, .reply, .dropped, .goodbye: return nil
        }
    }

    /// When the value was measured (seconds since boot), for messages that carry one.
    public var timestamp: Double? {
        switch self {
        case .sample(let sample): return sample.timestamp
        case .deviceMotion(let motion): return motion.timestamp
        case .heading(let heading, _, _): return heading.timestamp
        case .hinge(let angle): return angle.timestamp
        case .event(let event): return event.timestamp
        case .proximity(let proximity): return proximity.timestamp
        case .hello, .reply, .availability, .calibration, .dropped, .goodbye: return nil
        }
    }

    /// The message as one line of JSON, without the newline.
    public var line: String {
        var writer = JSONWriter()
        switch self {
        case .hello(let hello):
            writer.field("type", "hello")
            hello.write(into: &writer)
        case .reply(let id, let result):
            writer.field("type", "reply")
            writer.field("id", id)
            switch result {
            case .success(let reply):
                writer.field("ok", true)
                switch reply {
                case .subscribed(let interval, let available, let latency):
                    writer.field("interval", interval)
                    writer.field("available", available)
                    if latency > 0 { writer.field("latency", latency) }
                case .unsubscribed:
                    break
                case .value(let message, let age):
                    writer.raw("sample", message.line)
                    if let age { writer.field("age", age) }
                case .status(let status):
                    writer.raw("status", status.json)
                }
            case .failure(let error):
                writer.field("ok", false)
                var detail = JSONWriter()
                detail.field("code", error.code.rawValue)
                detail.field("message", error.message)
                writer.raw("error", detail.finished)
            }
        case .sample(let sample):
            let stream = StreamName(sample.kind)
            writer.field("type", stream.rawValue)
            writer.field("timestamp", sample.timestamp)
            if sample.kind.isMotion {
                writer.field(Self.vectorField(sample.kind), sample.vector)
            } else {
                writer.field(Self.vectorField(sample.kind), sample.vector.x)
            }
        case .deviceMotion(let motion):
            writer.field("type", "deviceMotion")
            writer.field("timestamp", motion.timestamp)
            writer.field("frame", motion.referenceFrame.description)
            let q = motion.attitude.quaternion, a = motion.attitude
            var attitude = JSONWriter()
            attitude.raw("quaternion", "{\"w\":\(JSONWriter.number(q.w)),\"x\":\(JSONWriter.number(q.x)),\"y\":\(JSONWriter.number(q.y)),\"z\":\(JSONWriter.number(q.z))}")
            attitude.field("roll", a.roll)
            attitude.field("pitch", a.pitch)
            attitude.field("yaw", a.yaw)
            writer.raw("attitude", attitude.finished)
            writer.field("rotationRate", motion.rotationRate.vector)
            writer.field("gravity", motion.gravity.vector)
            writer.field("userAcceleration", motion.userAcceleration.vector)
            var field = JSONWriter()
            field.field("field", motion.magneticField.field.vector)
            field.field("accuracy", motion.magneticField.accuracy.description)
            writer.raw("magneticField", field.finished)
            writer.field("heading", motion.heading)
        case .heading(let heading, let orientation, let topEdge):
            writer.field("type", "heading")
            writer.field("timestamp", heading.timestamp)
            writer.field("heading", topEdge)
            writer.field("magneticHeading", heading.magneticHeading)
            writer.field("trueHeading", heading.trueHeading)
            writer.field("headingAccuracy", heading.headingAccuracy)
            writer.field("orientation", orientation.rawValue)
            writer.field("field", heading.field.vector)
        case .hinge(let angle):
            writer.field("type", "hinge")
            writer.field("timestamp", angle.timestamp)
            writer.field("angle", angle.degrees)
            writer.field("accuracy", angle.accuracy.rawValue)
        case .event(let event):
            switch event {
            case .orientation(let orientation, let t):
                writer.field("type", "orientation")
                writer.field("timestamp", t)
                writer.field("orientation", orientation.rawValue)
            case .tilt(let tilt, let t):
                writer.field("type", "tilt")
                writer.field("timestamp", t)
                writer.field("tilt", tilt.rawValue)
            case .shake(let phase, let t):
                writer.field("type", "shake")
                writer.field("timestamp", t)
                writer.field("phase", phase.rawValue)
            case .gesture(let gesture, let t):
                writer.field("type", "gesture")
                writer.field("timestamp", t)
                writer.field("gesture", gesture.rawValue)
            case .posture(let posture, let t):
                writer.field("type", "posture")
                writer.field("timestamp", t)
                writer.field("posture", posture.rawValue)
            }
        case .proximity(let proximity):
            writer.field("type", "proximity")
            writer.field("timestamp", proximity.timestamp)
            writer.field("near", proximity.near)
            writer.field("level", proximity.level)
        case .availability(let kind, let state):
            writer.field("type", "availability")
            writer.field("sensor", kind.rawValue)
            state.write(into: &writer)
        case .calibration(let accuracy, let needed):
            writer.field("type", "calibration")
            writer.field("accuracy", accuracy.description)
            writer.field("calibrationNeeded", needed)
        case .dropped(let stream, let count, let total):
            writer.field("type", "dropped")
            writer.field("stream", stream.rawValue)
            writer.field("count", count)
            writer.field("total", total)
        case .goodbye(let reason):
            writer.field("type", "goodbye")
            writer.field("reason", reason)
        }
        return writer.finished
    }

    /// The value's field name in a raw sample message (a vector; light's lux a number).
    public static func vectorField(_ kind: SensorKind) -> String {
        switch kind {
        case .accelerometer, .baseAccelerometer: return "acceleration"
        case .gyroscope, .baseGyroscope: return "rotationRate"
        case .magnetometer: return "magneticField"
        case .light: return "lux"
        case .proximity: return "level"
        }
    }
}
