import Testing
import MotionCore
import MotionProtocol

/// Request lines as a client sends them: every op and its options, the error (code and the
/// field it names) for each kind of bad line, the id recovered from a bad line, and `json`
/// round-tripping through the parser.
@Suite("ClientRequest")
struct ClientRequestTests {
    @Test("subscribe reads the interval, the deviceMotion frame, the heading filter and edge, and detector options")
    func subscribe() throws {
        #expect(try parse(#"{"op":"subscribe","id":1,"stream":"deviceMotion","interval":0.02,"frame":"xMagneticNorthZVertical"}"#)
            == .subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.02, frame: .xMagneticNorthZVertical)))
        #expect(try parse(#"{"op":"subscribe","stream":"heading","filter":0,"orientation":"landscapeLeft"}"#)
            == .subscribe(.init(stream: .heading, headingFilter: 0, headingOrientation: .landscapeLeft)))
        // Detector options stay as the client sent them: the daemon lays them over its own settings.
        #expect(try parse(#"{"op":"subscribe","id":2,"stream":"shake","detectors":{"shake":{"threshold":1.5}}}"#)
            == .subscribe(.init(id: 2, stream: .shake, detectors: ["shake": ["threshold": 1.5]])))
    }

    @Test("subscribe without options leaves every option to the daemon's defaults")
    func subscribeDefaults() throws {
        #expect(try parse(#"{"op":"subscribe","stream":"gyro"}"#) == .subscribe(.init(stream: .gyro)))
        #expect(try parse(#"{"op":"subscribe","id":null,"stream":"deviceMotion","interval":null,"frame":null}"#)
            == .subscribe(.init(stream: .deviceMotion)))
    }

    @Test("an option of another stream is ignored, even when its value would be invalid")
    func optionsOfOtherStreams() throws {
        let line = #"{"op":"subscribe","stream":"accelerometer","frame":"north","filter":true,"orientation":"up","detectors":7}"#
        #expect(try parse(line) == .subscribe(.init(stream: .accelerometer)))
    }

    @Test("the longest interval accepted is Wire.maximumInterval")
    func maximumInterval() throws {
        #expect(try parse(#"{"op":"subscribe","stream":"magnetometer","interval":3600}"#)
            == .subscribe(.init(stream: .magnetometer, interval: Wire.maximumInterval)))
    }

    @Test("subscribe reads a batching latency on every sample stream; 0 is no batching; up to Wire.maximumLatency")
    func latency() throws {
        for stream in StreamName.allCases where stream.isSampleStream {
            #expect(try parse(#"{"op":"subscribe","stream":"\#(stream)","interval":0.01,"latency":1.5}"#)
                == .subscribe(.init(stream: stream, interval: 0.01, latency: 1.5)))
        }
        #expect(try parse(#"{"op":"subscribe","stream":"gyro","latency":0}"#) == .subscribe(.init(stream: .gyro)))
        #expect(try parse(#"{"op":"subscribe","stream":"gyro","latency":null}"#) == .subscribe(.init(stream: .gyro)))
        #expect(try parse(#"{"op":"subscribe","stream":"heading","latency":10}"#)
            == .subscribe(.init(stream: .heading, latency: Wire.maximumLatency)))
    }

    @Test("a latency that is negative, too large, not a number, or on an event or status stream is invalidValue naming latency", arguments: [
        (#"{"op":"subscribe","id":1,"stream":"gyro","latency":-0.5}"#, "latency: -0.5 s is not between 0 and 10.0 s"),
        (#"{"op":"subscribe","id":1,"stream":"deviceMotion","latency":10.5}"#, "latency: 10.5 s is not between 0 and 10.0 s"),
        (#"{"op":"subscribe","id":1,"stream":"accelerometer","latency":1e300}"#, "latency: 1e+300 s is not between 0 and 10.0 s"),
        (#"{"op":"subscribe","id":1,"stream":"magnetometer","latency":"1"}"#, "latency: expected a number"),
        (#"{"op":"subscribe","id":1,"stream":"shake","latency":1}"#, "latency: shake is not a sample stream"),
        (#"{"op":"subscribe","id":1,"stream":"orientation","latency":0}"#, "latency: orientation is not a sample stream"),
        (#"{"op":"subscribe","id":1,"stream":"availability","latency":0.5}"#, "latency: availability is not a sample stream"),
    ])
    func latencyRefused(line: String, message: String) throws {
        let error = try #require(refusal(line))
        #expect(error.code == .invalidValue)
        #expect(error.message.hasPrefix(message), "\(error.message)")
        #expect(ClientRequest.requestID(inLine: Array(line.utf8)) == 1)
    }

    @Test("the latency refusal names exactly the streams that take a latency")
    func latencyRefusalNamesTheBatchedStreams() throws {
        let accepted = StreamName.allCases.filter { stream in
            (try? parse(#"{"op":"subscribe","stream":"\#(stream)","latency":1}"#)) != nil
        }
        #expect(accepted.contains(.light), "docs/PROTOCOL.md: light is a sample stream")
        for stream in StreamName.allCases where !accepted.contains(stream) {
            let message = try #require(refusal(#"{"op":"subscribe","stream":"\#(stream)","latency":1}"#)).message
            let named = try #require(message.split(separator: "only these are batched: ").dropFirst().first, "\(message)")
            #expect(named.split(separator: ", ").map(String.init) == accepted.map(\.rawValue), "\(message)")
        }
    }

    @Test("unsubscribe, get (with a frame or heading edge) and status")
    func otherOps() throws {
        #expect(try parse(#"{"op":"unsubscribe","id":3,"stream":"deviceMotion"}"#) == .unsubscribe(id: 3, stream: .deviceMotion))
        #expect(try parse(#"{"op":"get","id":4,"stream":"deviceMotion","frame":"xTrueNorthZVertical"}"#)
            == .get(id: 4, stream: .deviceMotion, frame: .xTrueNorthZVertical, orientation: nil))
        #expect(try parse(#"{"op":"get","stream":"heading","orientation":"portraitUpsideDown"}"#)
            == .get(id: nil, stream: .heading, frame: nil, orientation: .portraitUpsideDown))
        #expect(try parse(#"{"op":"get","id":5,"stream":"accelerometer","frame":"xTrueNorthZVertical","orientation":"landscapeLeft"}"#)
            == .get(id: 5, stream: .accelerometer, frame: nil, orientation: nil))
        #expect(try parse(#"{"op":"status","id":6}"#) == .status(id: 6))
        #expect(try parse(#"{"op":"status"}"#) == .status(id: nil))
    }

    @Test("unknown fields are ignored")
    func unknownFields() throws {
        #expect(try parse(#"{"op":"status","id":7,"client":"motionctl","options":{"verbose":[1,2]}}"#) == .status(id: 7))
        #expect(try parse(#"{"version":2,"op":"unsubscribe","stream":"gyro","reason":null}"#) == .unsubscribe(id: nil, stream: .gyro))
    }

    @Test("a bad line is refused with the code for what is wrong and a message naming it", arguments: [
        ("{\"op\":\"status\"", ErrorCode.malformedJSON, "not valid JSON"),
        ("42", .malformedJSON, "JSON"),
        (#""status""#, .malformedJSON, "JSON"),
        ("", .malformedJSON, "JSON"),
        (#"{"id":1}"#, .missingField, "op"),
        (#"{"op":null,"id":1}"#, .missingField, "op"),
        (#"{"op":"publish"}"#, .unknownOp, "publish"),
        (#"{"op":["status"]}"#, .invalidValue, "op"),
        (#"{"op":"subscribe","id":1}"#, .missingField, "stream"),
        (#"{"op":"get"}"#, .missingField, "stream"),
        (#"{"op":"unsubscribe","stream":"compass"}"#, .unknownStream, "compass"),
        (#"{"op":"subscribe","stream":7}"#, .invalidValue, "stream"),
        (#"{"op":"subscribe","stream":"gyro","interval":"0.1"}"#, .invalidValue, "interval"),
        (#"{"op":"subscribe","stream":"gyro","interval":-0.1}"#, .invalidValue, "interval"),
        (#"{"op":"subscribe","stream":"gyro","interval":0}"#, .invalidValue, "interval"),
        (#"{"op":"subscribe","stream":"gyro","interval":3600.5}"#, .invalidValue, "interval"),
        (#"{"op":"subscribe","stream":"gyro","interval":NaN}"#, .malformedJSON, "JSON"),
        (#"{"op":"subscribe","stream":"gyro","interval":1e999}"#, .malformedJSON, "JSON"),
        (#"{"op":"subscribe","stream":"heading","filter":360}"#, .invalidValue, "filter"),
        (#"{"op":"subscribe","stream":"heading","filter":-1}"#, .invalidValue, "filter"),
        (#"{"op":"status","id":1.5}"#, .invalidValue, "id"),
        (#"{"op":"status","id":"1"}"#, .invalidValue, "id"),
        (#"{"op":"subscribe","stream":"deviceMotion","frame":"north"}"#, .invalidValue, #"frame "north""#),
        (#"{"op":"get","stream":"deviceMotion","frame":4}"#, .invalidValue, "frame"),
        (#"{"op":"subscribe","stream":"heading","orientation":"faceUp"}"#, .invalidValue, #"orientation "faceUp""#),
        (#"{"op":"get","stream":"heading","orientation":"up"}"#, .invalidValue, #"orientation "up""#),
        (#"{"op":"subscribe","stream":"shake","detectors":[1]}"#, .invalidValue, "detectors"),
        (#"{"op":"subscribe","stream":"shake","detectors":"sensitive"}"#, .invalidValue, "detectors"),
        (#"{"op":"subscribe","stream":"shake","detectors":{"shake":{"threshold":"high"}}}"#, .invalidValue, "detectors.shake.threshold"),
        (#"{"op":"subscribe","stream":"orientation","detectors":{"orientation":5}}"#, .invalidValue, "detectors.orientation"),
        (#"{"op":"subscribe","stream":"shake","detectors":{"shake":{"requiredReversals":-9e18}}}"#, .invalidValue,
         "detectors.shake.requiredReversals: expected 1 to 100, got -9e+18"),
        (#"{"op":"subscribe","stream":"shake","detectors":{"shake":{"threshold":-1e308}}}"#, .invalidValue, "detectors.shake.threshold: expected more than 0"),
        (#"{"op":"subscribe","stream":"gesture","detectors":{"slap":{"highPassTau":0}}}"#, .invalidValue, "detectors.slap.highPassTau: expected more than 0"),
        (#"{"op":"subscribe","stream":"gesture","detectors":{"tap":{"doubleTapWindow":1e300}}}"#, .invalidValue, "detectors.tap.doubleTapWindow: expected 0 to 10 s"),
        (#"{"op":"subscribe","stream":"orientation","detectors":{"hardAcceleration":-0.5}}"#, .invalidValue, "detectors.hardAcceleration"),
    ])
    func refused(line: String, code: ErrorCode, names: String) throws {
        let error = try #require(refusal(line))
        #expect(error.code == code)
        #expect(error.message.contains(names), "\(error.message)")
    }

    @Test("true or false where a number is wanted is refused, not read as 1 or 0", arguments: [
        #"{"op":"subscribe","stream":"gyro","interval":true}"#,
        #"{"op":"subscribe","stream":"heading","filter":false}"#,
        #"{"op":"status","id":true}"#,
        #"{"op":"subscribe","stream":"shake","detectors":{"shake":{"threshold":true}}}"#,
    ])
    func booleanIsNotANumber(line: String) throws {
        let error = try #require(refusal(line))
        #expect(error.code == .invalidValue)
    }

    @Test("a JSON array is refused as malformed, and the message says it is an array")
    func arrayLine() throws {
        let error = try #require(refusal(#"[{"op":"status"}]"#))
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains("array"), "\(error.message)")
    }

    @Test("the id of a line that is otherwise wrong is recovered for the error reply", arguments: [
        (#"{"id":7,"op":"publish"}"#, 7 as Int?),
        (#"{"op":"subscribe","stream":"compass","id":8}"#, 8),
        (#"{"id":9}"#, 9),
        (#"{"id":-3,"op":"subscribe","stream":"gyro","interval":true}"#, -3),
        (#"{"id":"9","op":"status"}"#, nil),
        (#"{"id":true,"op":"status"}"#, nil),
        (#"{"id":1.5,"op":"status"}"#, nil),
        (#"[{"id":1}]"#, nil),
        (#"{"id":1,"op":"#, nil),
    ])
    func requestID(line: String, id: Int?) {
        #expect(ClientRequest.requestID(inLine: Array(line.utf8)) == id)
    }

    @Test("ClientRequest.json parses back to the same request", arguments: [
        ClientRequest.subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.02, frame: .xTrueNorthZVertical)),
        .subscribe(.init(stream: .heading, interval: 0.5, headingFilter: 2.5, headingOrientation: .landscapeRight)),
        .subscribe(.init(id: 2, stream: .orientation, interval: 0.05, detectors: ClientRequestTests.tunedDetectors)),
        .subscribe(.init(id: 3, stream: .availability)),
        .subscribe(.init(id: 8, stream: .accelerometer, interval: 0.01, latency: 0.5)),
        .unsubscribe(id: 4, stream: .gyro),
        .unsubscribe(id: nil, stream: .calibration),
        .get(id: 5, stream: .deviceMotion, frame: .xArbitraryCorrectedZVertical, orientation: nil),
        .get(id: 6, stream: .heading, frame: nil, orientation: .portraitUpsideDown),
        .get(id: nil, stream: .magnetometer, frame: nil, orientation: nil),
        .status(id: 7),
        .status(id: nil),
    ])
    func jsonRoundTrip(request: ClientRequest) throws {
        #expect(try parse(request.json) == request)
        #expect(!request.json.contains("\n"))
    }

    /// Detector parameters changed at two nesting levels.
    static let tunedDetectors: [String: JSONValue] = [
        "orientation": ["settleTime": 0.3], "shake": ["requiredReversals": 3], "hardAcceleration": 0.75,
    ]

    @Test("ClientRequest.id is the request's id for every op")
    func id() {
        #expect(ClientRequest.subscribe(.init(id: 1, stream: .gyro)).id == 1)
        #expect(ClientRequest.unsubscribe(id: 2, stream: .gyro).id == 2)
        #expect(ClientRequest.get(id: 3, stream: .gyro, frame: nil, orientation: nil).id == 3)
        #expect(ClientRequest.status(id: nil).id == nil)
    }
}
