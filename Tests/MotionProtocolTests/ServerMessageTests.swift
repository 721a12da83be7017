import Foundation
import Testing
import MotionCore
import MotionProtocol

/// Every message the daemon sends, read back with Foundation's parser: the documented fields
/// of each shape (docs/PROTOCOL.md), and the stream each pushed message belongs to.
@Suite("ServerMessage")
struct ServerMessageTests {
    static let reading = SensorState(available: true, reason: "reading iio:device0 (mpu6050), buffered", mode: "buffered", period: 0.02,
                                     location: .display)
    static let absent = SensorState(available: false, reason: "no magnetometer found")

    @Test("hello: protocol 1, sensors by kind, frames, every stream and the interval limits")
    func hello() throws {
        let hello = Hello(daemon: "motiond 0.5", sensors: [.accelerometer: Self.reading, .magnetometer: Self.absent],
                          frames: [.xArbitraryZVertical, .xMagneticNorthZVertical], access: .activeSession(rate: 50))
        let object = try #require(jsonObject(ServerMessage.hello(hello).line))
        #expect(object["type"] as? String == "hello")
        #expect(object["protocol"] as? Int == 1)
        #expect(object["daemon"] as? String == "motiond 0.5")
        #expect((object["sensors"] as? [String: Any]).map { Set($0.keys) } == ["accelerometer", "magnetometer"])
        #expect(bool(value(object, "sensors.accelerometer.available")) == true)
        #expect(value(object, "sensors.accelerometer.mode") as? String == "buffered")
        #expect(isNumber(value(object, "sensors.accelerometer.period"), 0.02))
        #expect(bool(value(object, "sensors.magnetometer.available")) == false)
        #expect(value(object, "sensors.magnetometer.reason") as? String == "no magnetometer found")
        #expect(value(object, "sensors.magnetometer.mode") == nil)
        #expect(value(object, "sensors.accelerometer.location") as? String == "display")
        #expect(value(object, "sensors.magnetometer.location") == nil)
        let base = ServerMessage.availability(.accelerometer, SensorState(available: true, reason: "found", location: .base))
        #expect(try ServerMessage.parse(line: Array(base.line.utf8)) == base, "the location read back")
        #expect(object["frames"] as? [String] == ["xArbitraryZVertical", "xMagneticNorthZVertical"])
        #expect(object["streams"] as? [String] == ["accelerometer", "gyro", "magnetometer", "deviceMotion", "heading",
                                                   "orientation", "tilt", "shake", "gesture", "light", "proximity", "baseAccelerometer",
                                                   "baseGyro", "hinge", "posture", "availability", "calibration"])
        #expect(isNumber(value(object, "intervals.minimum"), Wire.minimumInterval))
        #expect(isNumber(value(object, "intervals.maximum"), Wire.maximumInterval))
        #expect(object["maximumLineLength"] as? Int == Wire.maximumLineLength)
        #expect(value(object, "access.tier") as? String == "activeSession")
        #expect((value(object, "access.streams") as? [String])?.count == StreamName.allCases.count)
        #expect(isNumber(value(object, "access.minimumInterval"), 0.02))
    }

    @Test("reply to subscribe: id, ok, the granted interval and availability")
    func subscribedReply() throws {
        let object = try #require(jsonObject(ServerMessage.reply(id: 1, .success(.subscribed(interval: 0.02, available: false))).line))
        #expect(object["type"] as? String == "reply")
        #expect(object["id"] as? Int == 1)
        #expect(bool(object["ok"]) == true)
        #expect(isNumber(object["interval"], 0.02))
        #expect(bool(object["available"]) == false)
        #expect(object["latency"] == nil, "no batching, no latency field")
        #expect(object["error"] == nil)
    }

    @Test("reply to a batching subscribe: the granted latency, read back by clients; absent reads as 0")
    func subscribedReplyWithLatency() throws {
        let reply = ServerMessage.reply(id: 2, .success(.subscribed(interval: 0.01, available: true, latency: 0.5)))
        let object = try #require(jsonObject(reply.line))
        #expect(isNumber(object["latency"], 0.5))
        #expect(try ServerMessage.parse(line: Array(reply.line.utf8)) == reply)
        let plain = ServerMessage.reply(id: 3, .success(.subscribed(interval: 0.01, available: true)))
        #expect(try ServerMessage.parse(line: Array(plain.line.utf8)) == plain)
    }

    @Test("reply to unsubscribe: id and ok only")
    func unsubscribedReply() throws {
        let object = try #require(jsonObject(ServerMessage.reply(id: 3, .success(.unsubscribed)).line))
        #expect(Set(object.keys) == ["type", "id", "ok"])
        #expect(object["id"] as? Int == 3)
        #expect(bool(object["ok"]) == true)
    }

    @Test("reply to get: the value under sample, in the shape it is pushed in")
    func valueReply() throws {
        let sample = Sample(kind: .accelerometer, timestamp: 812.3051, vector: Vector3(0.01, -0.02, -1))
        let object = try #require(jsonObject(ServerMessage.reply(id: 2, .success(.value(.sample(sample)))).line))
        #expect(object["id"] as? Int == 2)
        #expect(bool(object["ok"]) == true)
        #expect(value(object, "sample.type") as? String == "accelerometer")
        #expect(isNumber(value(object, "sample.timestamp"), 812.3051))
        #expect(isNumber(value(object, "sample.acceleration.z"), -1))
    }

    @Test("reply to status: source, sensors, frames, engine flags, clients and subscriptions")
    func statusReply() throws {
        let status = DaemonStatus(source: "sim:", uptime: 12.5, sensors: [.gyroscope: Self.reading], frames: .xArbitraryZVertical,
                                  engine: EngineFlags(MotionEngine().status), clients: 2, subscriptions: [.gyro: 2, .shake: 1])
        let object = try #require(jsonObject(ServerMessage.reply(id: 4, .success(.status(status))).line))
        #expect(value(object, "status.source") as? String == "sim:")
        #expect(isNumber(value(object, "status.uptime"), 12.5))
        #expect(bool(value(object, "status.sensors.gyroscope.available")) == true)
        #expect(value(object, "status.frames") as? [String] == ["xArbitraryZVertical"])
        #expect(bool(value(object, "status.engine.initialized")) == false)
        #expect(value(object, "status.engine.calibrationAccuracy") as? String == "uncalibrated")
        #expect(value(object, "status.clients") as? Int == 2)
        #expect(value(object, "status.subscriptions.gyro") as? Int == 2)
        #expect(value(object, "status.subscriptions.shake") as? Int == 1)
        #expect(value(object, "status.subscriptions.accelerometer") == nil)
        // The sensor lags as the fusion reads them (0 until learned)…
        #expect(isNumber(value(object, "status.engine.accelerometerLag"), 0) && isNumber(value(object, "status.engine.magnetometerLag"), 0))
        // …and none from an engine that does not compensate them.
        var configuration = MotionEngine.Configuration()
        configuration.compensatesSensorLags = false
        let uncompensated = DaemonStatus(source: "sim:", uptime: 1, sensors: [:], frames: [], engine: EngineFlags(MotionEngine(configuration: configuration).status),
                                         clients: 0, subscriptions: [:])
        let other = try #require(jsonObject(ServerMessage.reply(id: 5, .success(.status(uncompensated))).line))
        #expect(value(other, "status.engine.accelerometerLag") == nil && value(other, "status.engine.magnetometerLag") == nil)
        // What motionctl reads back: the lags, or none from a daemon that does not send them.
        for (message, lags) in [(status, Optional(0.0)), (uncompensated, nil)] {
            guard case .reply(_, .success(.status(let parsed)))? = try ServerMessage.parse(line: Array(ServerMessage.reply(id: 1, .success(.status(message))).line.utf8)) else {
                Issue.record("not a status reply")
                continue
            }
            #expect(parsed.engine.sensorLags?.accelerometer == lags && parsed.engine.sensorLags?.magnetometer == lags)
        }
    }

    @Test("a failed reply: ok false and the error's code and message; a missing id is null")
    func failureReply() throws {
        let error = ProtocolError(.unknownStream, "stream \"compass\": expected one of …")
        let object = try #require(jsonObject(ServerMessage.reply(id: nil, .failure(error)).line))
        #expect(object["type"] as? String == "reply")
        #expect(object["id"] is NSNull)
        #expect(bool(object["ok"]) == false)
        #expect(value(object, "error.code") as? String == "unknownStream")
        #expect(value(object, "error.message") as? String == error.message)
    }

    @Test("raw samples: the stream name as type and the vector under its field", arguments: [
        (SensorKind.accelerometer, "accelerometer", "acceleration"),
        (.gyroscope, "gyro", "rotationRate"),
        (.magnetometer, "magnetometer", "magneticField"),
    ])
    func sample(kind: SensorKind, type: String, field: String) throws {
        let sample = Sample(kind: kind, timestamp: 100.25, vector: Vector3(1.5, -2, 0.125))
        let object = try #require(jsonObject(ServerMessage.sample(sample).line))
        #expect(Set(object.keys) == ["type", "timestamp", field])
        #expect(object["type"] as? String == type)
        #expect(isNumber(object["timestamp"], 100.25))
        #expect(isNumber(value(object, "\(field).x"), 1.5))
        #expect(isNumber(value(object, "\(field).y"), -2))
        #expect(isNumber(value(object, "\(field).z"), 0.125))
    }

    @Test("light: lux as a number; proximity: near and the reading in near levels; both parsed back the same")
    func lightAndProximity() throws {
        let light = ServerMessage.sample(Sample(kind: .light, timestamp: 7.5, vector: Vector3(312.5, 0, 0)))
        let lightObject = try #require(jsonObject(light.line))
        #expect(Set(lightObject.keys) == ["type", "timestamp", "lux"])
        #expect(lightObject["type"] as? String == "light")
        #expect(isNumber(lightObject["lux"], 312.5))
        #expect(try ServerMessage.parse(line: Array(light.line.utf8)) == light)
        #expect(light.stream == .light)

        let proximity = ServerMessage.proximity(Proximity(near: true, level: 1.25, timestamp: 8))
        let object = try #require(jsonObject(proximity.line))
        #expect(Set(object.keys) == ["type", "timestamp", "near", "level"])
        #expect(object["type"] as? String == "proximity")
        #expect(bool(object["near"]) == true)
        #expect(isNumber(object["level"], 1.25))
        #expect(isNumber(object["timestamp"], 8))
        #expect(try ServerMessage.parse(line: Array(proximity.line.utf8)) == proximity)
        #expect(proximity.stream == .proximity)
        #expect(proximity.timestamp == 8)
        #expect(proximity.text?.contains("near") == true)
        #expect(light.text?.contains("312.5 lx") == true)
    }

    @Test("deviceMotion: quaternion w,x,y,z and Euler angles, rotation, gravity, user acceleration, field and accuracy, heading, frame")
    func deviceMotion() throws {
        let attitude = Attitude(roll: 0.1, pitch: -0.2, yaw: 0.3)
        let motion = DeviceMotion(timestamp: 812.3051, attitude: attitude, rotationRate: RotationRate(x: 0.01, y: -0.02, z: 0.03),
                                  gravity: Acceleration(x: 0, y: -0.5, z: -0.75), userAcceleration: Acceleration(x: 0.125, y: 0, z: -0.25),
                                  magneticField: CalibratedMagneticField(field: MagneticField(x: 20, y: -1, z: -44), accuracy: .medium),
                                  heading: 123.4, referenceFrame: .xMagneticNorthZVertical)
        let object = try #require(jsonObject(ServerMessage.deviceMotion(motion).line))
        #expect(object["type"] as? String == "deviceMotion")
        #expect(isNumber(object["timestamp"], 812.3051))
        #expect(object["frame"] as? String == "xMagneticNorthZVertical")
        let q = attitude.quaternion
        #expect(isNumber(value(object, "attitude.quaternion.w"), q.w))
        #expect(isNumber(value(object, "attitude.quaternion.x"), q.x))
        #expect(isNumber(value(object, "attitude.quaternion.y"), q.y))
        #expect(isNumber(value(object, "attitude.quaternion.z"), q.z))
        #expect(isNumber(value(object, "attitude.roll"), attitude.roll))
        #expect(isNumber(value(object, "attitude.pitch"), attitude.pitch))
        #expect(isNumber(value(object, "attitude.yaw"), attitude.yaw))
        #expect(isNumber(value(object, "rotationRate.y"), -0.02))
        #expect(isNumber(value(object, "gravity.y"), -0.5))
        #expect(isNumber(value(object, "gravity.z"), -0.75))
        #expect(isNumber(value(object, "userAcceleration.x"), 0.125))
        #expect(isNumber(value(object, "userAcceleration.z"), -0.25))
        #expect(isNumber(value(object, "magneticField.field.x"), 20))
        #expect(isNumber(value(object, "magneticField.field.z"), -44))
        #expect(value(object, "magneticField.accuracy") as? String == "medium")
        #expect(isNumber(object["heading"], 123.4))
    }

    @Test("heading: the top edge's heading, the subscription's edge and its magnetic, true and accuracy values, the field")
    func heading() throws {
        let reading = Heading(timestamp: 5.5, magneticHeading: 90, trueHeading: -1, headingAccuracy: 15, field: MagneticField(x: 0, y: 20, z: -44))
        let object = try #require(jsonObject(ServerMessage.heading(reading, orientation: .landscapeLeft, topEdge: 0.5).line))
        #expect(object["type"] as? String == "heading")
        #expect(isNumber(object["timestamp"], 5.5))
        #expect(isNumber(object["heading"], 0.5))
        #expect(isNumber(object["magneticHeading"], 90))
        #expect(isNumber(object["trueHeading"], -1))
        #expect(isNumber(object["headingAccuracy"], 15))
        #expect(object["orientation"] as? String == "landscapeLeft")
        #expect(isNumber(value(object, "field.y"), 20))
    }

    @Test("events: orientation, tilt, shake phase, gesture and posture with their timestamps; parsed back the same", arguments: [
        (MotionEvent.orientation(.landscapeLeft, timestamp: 1.25), "orientation", "orientation", "landscapeLeft"),
        (.tilt(.faceDown, timestamp: 1.5), "tilt", "tilt", "faceDown"),
        (.shake(.began, timestamp: 2.5), "shake", "phase", "began"),
        (.shake(.cancelled, timestamp: 3), "shake", "phase", "cancelled"),
        (.gesture(.doubleTap, timestamp: 4.75), "gesture", "gesture", "doubleTap"),
        (.posture(.tent, timestamp: 5.5), "posture", "posture", "tent"),
    ])
    func event(event: MotionEvent, type: String, field: String, name: String) throws {
        let object = try #require(jsonObject(ServerMessage.event(event).line))
        #expect(Set(object.keys) == ["type", "timestamp", field])
        #expect(object["type"] as? String == type)
        #expect(isNumber(object["timestamp"], event.timestamp))
        #expect(object[field] as? String == name)
        #expect(try ServerMessage.parse(line: Array(ServerMessage.event(event).line.utf8)) == .event(event))
    }

    @Test("hinge: angle in degrees and accuracy; base accelerometer and gyroscope samples; parsed back the same")
    func hingeAndBase() throws {
        let angle = ServerMessage.hinge(HingeAngle(degrees: 187.5, accuracy: .held, timestamp: 12.25))
        let object = try #require(jsonObject(angle.line))
        #expect(Set(object.keys) == ["type", "timestamp", "angle", "accuracy"])
        #expect(object["type"] as? String == "hinge" && object["accuracy"] as? String == "held")
        #expect(isNumber(object["angle"], 187.5) && isNumber(object["timestamp"], 12.25))
        #expect(try ServerMessage.parse(line: Array(angle.line.utf8)) == angle)
        let base = ServerMessage.sample(Sample(kind: .baseAccelerometer, timestamp: 3, vector: Vector3(0, 0, 1)))
        #expect(jsonObject(base.line)?["type"] as? String == "baseAccelerometer")
        #expect(try ServerMessage.parse(line: Array(base.line.utf8)) == base)
        let baseRate = ServerMessage.sample(Sample(kind: .baseGyroscope, timestamp: 3, vector: Vector3(0.5, 0, 0)))
        let rateObject = try #require(jsonObject(baseRate.line))
        #expect(rateObject["type"] as? String == "baseGyro" && rateObject["rotationRate"] != nil)
        #expect(try ServerMessage.parse(line: Array(baseRate.line.utf8)) == baseRate)
        let wrong = #"{"type":"hinge","timestamp":1,"angle":10,"accuracy":"great"}"#
        #expect(throws: ProtocolError.self) { try ServerMessage.parse(line: Array(wrong.utf8)) }
    }

    @Test("availability: the sensor and its state, mode and period only while it is read")
    func availability() throws {
        let reading = try #require(jsonObject(ServerMessage.availability(.gyroscope, Self.reading).line))
        #expect(reading["type"] as? String == "availability")
        #expect(reading["sensor"] as? String == "gyroscope")
        #expect(bool(reading["available"]) == true)
        #expect(reading["reason"] as? String == Self.reading.reason)
        #expect(reading["mode"] as? String == "buffered")
        #expect(isNumber(reading["period"], 0.02))
        let absent = try #require(jsonObject(ServerMessage.availability(.magnetometer, Self.absent).line))
        #expect(Set(absent.keys) == ["type", "sensor", "available", "reason"])
        #expect(bool(absent["available"]) == false)
    }

    @Test("calibration: the accuracy's name and whether calibration is needed")
    func calibration() throws {
        let object = try #require(jsonObject(ServerMessage.calibration(accuracy: .low, calibrationNeeded: true).line))
        #expect(object["type"] as? String == "calibration")
        #expect(object["accuracy"] as? String == "low")
        #expect(bool(object["calibrationNeeded"]) == true)
    }

    @Test("dropped: the stream, the count just lost and the total")
    func dropped() throws {
        let object = try #require(jsonObject(ServerMessage.dropped(stream: .deviceMotion, count: 7, total: 30).line))
        #expect(object["type"] as? String == "dropped")
        #expect(object["stream"] as? String == "deviceMotion")
        #expect(object["count"] as? Int == 7)
        #expect(object["total"] as? Int == 30)
    }

    @Test("goodbye: the reason")
    func goodbye() throws {
        let object = try #require(jsonObject(ServerMessage.goodbye(reason: "the daemon is stopping").line))
        #expect(object["type"] as? String == "goodbye")
        #expect(object["reason"] as? String == "the daemon is stopping")
    }

    @Test("every message is one line")
    func oneLine() {
        let messages: [ServerMessage] = [
            .goodbye(reason: "line one\nline two"),
            .reply(id: 1, .failure(ProtocolError(.invalidValue, "a\nb"))),
            .availability(.accelerometer, SensorState(available: false, reason: "removed\n(udev)")),
        ]
        for message in messages { #expect(!message.line.contains("\n")) }
    }

    @Test("the stream a message belongs to", arguments: [
        (ServerMessage.sample(Sample(kind: .accelerometer, timestamp: 0, vector: .zero)), StreamName.accelerometer as StreamName?),
        (.sample(Sample(kind: .gyroscope, timestamp: 0, vector: .zero)), .gyro),
        (.sample(Sample(kind: .magnetometer, timestamp: 0, vector: .zero)), .magnetometer),
        (.deviceMotion(ServerMessageTests.restingMotion), .deviceMotion),
        (.heading(Heading(timestamp: 0, magneticHeading: 0, trueHeading: -1, headingAccuracy: -1, field: MagneticField(.zero)),
                  orientation: .portrait, topEdge: 0), .heading),
        (.event(.orientation(.faceUp, timestamp: 0)), .orientation),
        (.event(.tilt(.tiltedDown, timestamp: 0)), .tilt),
        (.event(.shake(.ended, timestamp: 0)), .shake),
        (.event(.gesture(.tap, timestamp: 0)), .gesture),
        (.event(.posture(.tablet, timestamp: 0)), .posture),
        (.hinge(HingeAngle(degrees: 90, accuracy: .high, timestamp: 0)), .hinge),
        (.sample(Sample(kind: .baseAccelerometer, timestamp: 0, vector: .zero)), .baseAccelerometer),
        (.sample(Sample(kind: .baseGyroscope, timestamp: 0, vector: .zero)), .baseGyro),
        (.availability(.magnetometer, ServerMessageTests.absent), .availability),
        (.calibration(accuracy: .high, calibrationNeeded: false), .calibration),
        (.hello(Hello(daemon: "motiond", sensors: [:], frames: .xArbitraryZVertical, access: nil)), nil),
        (.reply(id: 1, .success(.unsubscribed)), nil),
        (.dropped(stream: .gyro, count: 1, total: 1), nil),
        (.goodbye(reason: "bye"), nil),
    ])
    func stream(message: ServerMessage, stream: StreamName?) {
        #expect(message.stream == stream)
    }

    static let restingMotion = DeviceMotion(
        timestamp: 0, attitude: .identity, rotationRate: RotationRate(.zero), gravity: Acceleration(x: 0, y: 0, z: -1),
        userAcceleration: Acceleration(.zero), magneticField: CalibratedMagneticField(field: MagneticField(.zero), accuracy: .uncalibrated),
        heading: -1, referenceFrame: .xArbitraryZVertical)
}
