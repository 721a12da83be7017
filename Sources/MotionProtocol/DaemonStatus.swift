import MotionCore

/// The answer to `status`: the source, every sensor, the fusion's flags, and who is connected.
public struct DaemonStatus: Sendable, Hashable {
    /// The daemon and its version (`motiond 0.19.0`, ``MotionVersion/daemon``; nil from a
    /// daemon that does not say).
    public var daemon: String?
    /// The source URI (`local:`, `ip:HOST`, `sim:`, `replay:FILE`).
    public var source: String
    /// Seconds since the daemon started.
    public var uptime: Double
    public var sensors: [SensorKind: SensorState]
    public var frames: AttitudeReferenceFrame
    public var engine: EngineFlags
    /// Connected clients.
    public var clients: Int
    /// Subscriptions per stream, over all clients.
    public var subscriptions: [StreamName: Int]
    /// Bytes of the daemon's heap in use (allocated, not freed), when known.
    public var heapInUse: Int?

    public init(daemon: String? = MotionVersion.daemon, source: String, uptime: Double, sensors: [SensorKind: SensorState],
                frames: AttitudeReferenceFrame, engine: EngineFlags, clients: Int, subscriptions: [StreamName: Int], heapInUse: Int? = nil) {
        self.daemon = daemon
        self.source = source
        self.uptime = uptime
        self.sensors = sensors
        self.frames = frames
        self.engine = engine
        self.clients = clients
        self.subscriptions = subscriptions
        self.heapInUse = heapInUse
    }

    var json: String {
        var writer = JSONWriter()
        if let daemon { writer.field("daemon", daemon) }
        writer.field("source", source)
        writer.field("uptime", uptime)
        writer.raw("sensors", SensorState.json(sensors))
        writer.raw("frames", JSONWriter.array(frames.names))
        writer.raw("engine", engine.json)
        writer.field("clients", clients)
        var counts = JSONWriter()
        for stream in StreamName.allCases { if let n = subscriptions[stream] { counts.field(stream.rawValue, n) } }
        writer.raw("subscriptions", counts.finished)
        if let heapInUse { writer.field("heapInUse", heapInUse) }
        return writer.finished
    }
}

/// The motion engine's flags as the wire carries them (``MotionEngineStatus`` with the
/// self-check verdict and the applied correction as text): why the fusion does what it does.
public struct EngineFlags: Sendable, Hashable {
    public var initialized: Bool
    public var atRest: Bool
    public var magneticallyDisturbed: Bool
    public var calibrationAccuracy: MagneticFieldCalibrationAccuracy
    public var calibrationNeeded: Bool
    public var northReliable: Bool
    /// rad/s, device frame.
    public var gyroscopeBias: Vector3
    /// The axis self-check's verdict, e.g. `consistent` or `inconsistent(correction: …)`.
    public var axisCheck: String
    /// The gyroscope axis correction in force (kernel mount-matrix text), if any.
    public var gyroscopeCorrection: String?
    /// How much later than the gyroscope's the accelerometer's and the magnetometer's samples
    /// are, s, as the fusion reads them (`accelerometerLag`, `magnetometerLag` on the wire); nil
    /// when the daemon does not compensate them (or is older than 0.19).
    public var sensorLags: MotionEngine.SensorLags?

    public init(_ status: MotionEngineStatus) {
        initialized = status.initialized
        atRest = status.atRest
        magneticallyDisturbed = status.magneticallyDisturbed
        calibrationAccuracy = status.calibrationAccuracy
        calibrationNeeded = status.calibrationNeeded
        northReliable = status.isNorthReliable
        gyroscopeBias = status.gyroscopeBias
        axisCheck = "\(status.axisCheck)"
        gyroscopeCorrection = status.gyroscopeCorrection?.text
        sensorLags = status.sensorLags
    }

    init(_ fields: JSONFields) throws(ProtocolError) {
        initialized = try fields.required("initialized", fields.bool)
        atRest = try fields.required("atRest", fields.bool)
        magneticallyDisturbed = try fields.required("magneticallyDisturbed", fields.bool)
        calibrationAccuracy = try fields.accuracy("calibrationAccuracy")
        calibrationNeeded = try fields.required("calibrationNeeded", fields.bool)
        northReliable = try fields.required("northReliable", fields.bool)
        gyroscopeBias = try fields.required("gyroscopeBias", fields.vector)
        axisCheck = try fields.required("axisCheck", fields.string)
        gyroscopeCorrection = try fields.string("gyroscopeCorrection")
        if let accelerometer = try fields.number("accelerometerLag"), let magnetometer = try fields.number("magnetometerLag") {
            sensorLags = MotionEngine.SensorLags(accelerometer: accelerometer, magnetometer: magnetometer)
        }
    }

    var json: String {
        var writer = JSONWriter()
        writer.field("initialized", initialized)
        writer.field("atRest", atRest)
        writer.field("magneticallyDisturbed", magneticallyDisturbed)
        writer.field("calibrationAccuracy", calibrationAccuracy.description)
        writer.field("calibrationNeeded", calibrationNeeded)
        writer.field("northReliable", northReliable)
        writer.field("gyroscopeBias", gyroscopeBias)
        writer.field("axisCheck", axisCheck)
        if let gyroscopeCorrection { writer.field("gyroscopeCorrection", gyroscopeCorrection) }
        if let sensorLags {
            writer.field("accelerometerLag", sensorLags.accelerometer)
            writer.field("magnetometerLag", sensorLags.magnetometer)
        }
        return writer.finished
    }
}
