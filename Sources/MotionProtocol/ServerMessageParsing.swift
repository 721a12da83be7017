import MotionCore

extension ServerMessage {
    /// Parses one line from the daemon (a client's side of ``line``). Returns nil for a message
    /// `type` this version does not know, which a client should skip (newer daemons may send
    /// more); throws for a line that is not a valid message.
    public static func parse(line: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage? {
        try parse(JSONFields(JSONFields.object(line)))
    }

    static func parse(_ fields: JSONFields) throws(ProtocolError) -> ServerMessage? {
        let type = try fields.required("type", fields.string)
        switch type {
        case "hello":
            guard try fields.required("protocol", fields.integer) == Wire.version else {
                throw ProtocolError(.invalidValue, "protocol \(try fields.integer("protocol") ?? 0): this client speaks \(Wire.version)")
            }
            return .hello(Hello(daemon: try fields.required("daemon", fields.string), sensors: try fields.sensors(),
                                frames: try fields.frames(), access: try fields.access()))
        case "reply":
            return .reply(id: try fields.integer("id"), try fields.reply())
        case "accelerometer", "gyro", "magnetometer", "baseAccelerometer", "baseGyro":
            let kind = StreamName(rawValue: type)!.sensorKind!
            return .sample(Sample(kind: kind, timestamp: try fields.required("timestamp", fields.number),
                                  vector: try fields.required(ServerMessage.vectorField(kind), fields.vector)))
        case "light":
            return .sample(Sample(kind: .light, timestamp: try fields.required("timestamp", fields.number),
                                  vector: Vector3(try fields.required("lux", fields.number), 0, 0)))
        case "proximity":
            return .proximity(Proximity(near: try fields.required("near", fields.bool), level: try fields.required("level", fields.number),
                                        timestamp: try fields.required("timestamp", fields.number)))
        case "deviceMotion":
            let attitude = try fields.required("attitude", fields.nested)
            let quaternion = try attitude.required("quaternion", attitude.nested)
            let q = Quaternion(w: try quaternion.required("w", quaternion.number), x: try quaternion.required("x", quaternion.number),
                               y: try quaternion.required("y", quaternion.number), z: try quaternion.required("z", quaternion.number))
            let magnetic = try fields.required("magneticField", fields.nested)
            return .deviceMotion(DeviceMotion(
                timestamp: try fields.required("timestamp", fields.number), attitude: Attitude(quaternion: q),
                rotationRate: RotationRate(try fields.required("rotationRate", fields.vector)),
                gravity: Acceleration(try fields.required("gravity", fields.vector)),
                userAcceleration: Acceleration(try fields.required("userAcceleration", fields.vector)),
                magneticField: CalibratedMagneticField(field: MagneticField(try magnetic.required("field", magnetic.vector)),
                                                       accuracy: try magnetic.accuracy("accuracy")),
                heading: try fields.required("heading", fields.number), referenceFrame: try fields.required("frame") { key throws(ProtocolError) in try fields.frame(key) }))
        case "heading":
            let heading = Heading(timestamp: try fields.required("timestamp", fields.number),
                                  magneticHeading: try fields.required("magneticHeading", fields.number),
                                  trueHeading: try fields.required("trueHeading", fields.number),
                                  headingAccuracy: try fields.required("headingAccuracy", fields.number),
                                  field: MagneticField(try fields.required("field", fields.vector)))
            return .heading(heading, orientation: try fields.headingOrientation() ?? .portrait,
                            topEdge: try fields.required("heading", fields.number))
        case "orientation":
            return .event(.orientation(try fields.required("orientation") { key throws(ProtocolError) in try fields.named(key, DeviceOrientation.self) },
                                       timestamp: try fields.required("timestamp", fields.number)))
        case "tilt":
            return .event(.tilt(try fields.required("tilt") { key throws(ProtocolError) in try fields.named(key, DeviceTilt.self) },
                                timestamp: try fields.required("timestamp", fields.number)))
        case "shake":
            let name = try fields.required("phase", fields.string)
            guard let phase = ShakeDetector.Phase(rawValue: name) else { throw ProtocolError(.invalidValue, "phase \"\(name)\": expected began, ended or cancelled") }
            return .event(.shake(phase, timestamp: try fields.required("timestamp", fields.number)))
        case "gesture":
            return .event(.gesture(try fields.required("gesture") { key throws(ProtocolError) in try fields.named(key, Gesture.self) },
                                   timestamp: try fields.required("timestamp", fields.number)))
        case "posture":
            return .event(.posture(try fields.required("posture") { key throws(ProtocolError) in try fields.named(key, Posture.self) },
                                   timestamp: try fields.required("timestamp", fields.number)))
        case "hinge":
            return .hinge(HingeAngle(degrees: try fields.required("angle", fields.number),
                                     accuracy: try fields.required("accuracy") { key throws(ProtocolError) in try fields.named(key, HingeAngleAccuracy.self) },
                                     timestamp: try fields.required("timestamp", fields.number)))
        case "availability":
            let name = try fields.required("sensor", fields.string)
            guard let kind = SensorKind(rawValue: name) else { throw ProtocolError(.invalidValue, "sensor \"\(name)\": not a sensor kind") }
            return .availability(kind, try SensorState(fields))
        case "calibration":
            return .calibration(accuracy: try fields.accuracy("accuracy"), calibrationNeeded: try fields.required("calibrationNeeded", fields.bool))
        case "dropped":
            return .dropped(stream: try fields.stream(), count: try fields.required("count", fields.integer),
                            total: try fields.required("total", fields.integer))
        case "goodbye":
            return .goodbye(reason: try fields.required("reason", fields.string))
        default:
            return nil
        }
    }
}

extension JSONFields {
    func accuracy(_ key: String) throws(ProtocolError) -> MagneticFieldCalibrationAccuracy {
        let name = try required(key, string)
        guard let accuracy = MagneticFieldCalibrationAccuracy(name: name) else {
            throw ProtocolError(.invalidValue, "\(key) \"\(name)\": expected uncalibrated, low, medium or high")
        }
        return accuracy
    }

    func sensors() throws(ProtocolError) -> [SensorKind: SensorState] {
        let all = try required("sensors", nested)
        var sensors: [SensorKind: SensorState] = [:]
        for kind in SensorKind.allCases {
            if let state = try all.nested(kind.rawValue) { sensors[kind] = try SensorState(state) }
        }
        return sensors
    }

    /// The hello's `access`; streams this version does not know are left out.
    func access() throws(ProtocolError) -> AccessGrant? {
        guard let access = try nested("access") else { return nil }
        let tierName = try access.required("tier", access.string)
        guard let tier = AccessGrant.Tier(rawValue: tierName) else {
            throw ProtocolError(.invalidValue, "access.tier: \"\(tierName)\" is not one of \(AccessGrant.Tier.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return AccessGrant(tier: tier, streams: Set(try access.required("streams", access.strings).compactMap(StreamName.init(rawValue:))),
                           minimumInterval: try access.required("minimumInterval", access.number))
    }

    func frames() throws(ProtocolError) -> AttitudeReferenceFrame {
        let names = try required("frames", strings)
        var frames: AttitudeReferenceFrame = []
        for name in names {
            // Frames a newer daemon adds are skipped.
            if let frame = AttitudeReferenceFrame(name: name) { frames.insert(frame) }
        }
        return frames
    }

    func reply() throws(ProtocolError) -> Result<ServerMessage.Reply, ProtocolError> {
        guard try required("ok", bool) else {
            let error = try required("error", nested)
            let name = try error.required("code", error.string)
            return .failure(ProtocolError(ErrorCode(rawValue: name) ?? .internalError, try error.required("message", error.string)))
        }
        if let interval = try number("interval") {
            return .success(.subscribed(interval: interval, available: try bool("available") ?? true, latency: try number("latency") ?? 0))
        }
        if let sample = try nested("sample") {
            guard let message = try ServerMessage.parse(sample) else { throw ProtocolError(.invalidValue, "sample: unknown message type") }
            return .success(.value(message, age: try number("age")))
        }
        if let status = try nested("status") {
            return .success(.status(try DaemonStatus(status)))
        }
        return .success(.unsubscribed)
    }
}

extension SensorState {
    init(_ fields: JSONFields) throws(ProtocolError) {
        self.init(available: try fields.required("available", fields.bool), reason: try fields.required("reason", fields.string),
                  mode: try fields.string("mode"), period: try fields.number("period"),
                  restInterval: try fields.number("restInterval"), location: try fields.named("location", SensorLocation.self),
                  unit: try fields.string("unit"), specificForce: try fields.bool("specificForce") ?? false)
    }
}

extension DaemonStatus {
    init(_ fields: JSONFields) throws(ProtocolError) {
        var subscriptions: [StreamName: Int] = [:]
        if let counts = try fields.nested("subscriptions") {
            for stream in StreamName.allCases { subscriptions[stream] = try counts.integer(stream.rawValue) }
        }
        self.init(daemon: try fields.string("daemon"), source: try fields.required("source", fields.string), uptime: try fields.required("uptime", fields.number),
                  sensors: try fields.sensors(), frames: try fields.frames(),
                  engine: try EngineFlags(try fields.required("engine", fields.nested)),
                  clients: try fields.required("clients", fields.integer), subscriptions: subscriptions,
                  heapInUse: try fields.integer("heapInUse"))
    }
}
