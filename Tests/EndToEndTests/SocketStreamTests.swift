import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// What a client on the socket receives from the real `motiond`, checked like Android's CTS
/// sensor tests check a stream: timestamps strictly increasing, the delivered rate within
/// 0.9–1.1 of the requested one, at most 2 % of gaps longer than 1.8 periods, and a still
/// device reading |a| = 1 ± 0.15 G and |ω| ≈ 0. Several clients at different rates share one
/// daemon, so each check also shows that clients do not disturb each other.
@Suite("Socket streams: rates, timestamps, values")
struct SocketStreamTests {
    /// A trace of a device lying still, face up, with sensor noise: 100 Hz for `seconds`.
    static func stillTrace(in directory: URL, seconds: Double = 40) throws -> String {
        var random = SystemRandomNumberGenerator()
        func noise(_ size: Double) -> Double { Double.random(in: -size...size, using: &random) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        for i in 0..<Int(seconds * 100) {
            let t = Double(i) / 100
            text += "\(t),\(noise(0.002)),\(noise(0.002)),\(noise(0.002)),\(noise(0.05)),\(noise(0.05)),\(9.81 + noise(0.05)),20,0,-44\n"
        }
        let path = directory.appendingPathComponent("still.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The CTS-style checks on one stream's messages as received.
    static func checkStream(_ messages: [[String: Any]], stream: String, interval: Double,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let values = messages.filter { $0["type"] as? String == stream }
        let times = values.compactMap { $0["timestamp"] as? Double }
        #expect(times.count == values.count, "every \(stream) message has a timestamp", sourceLocation: sourceLocation)
        guard times.count >= 10, let first = times.first, let last = times.last else {
            Issue.record("only \(times.count) \(stream) messages at \(interval) s", sourceLocation: sourceLocation)
            return
        }
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "\(stream) timestamps strictly increase", sourceLocation: sourceLocation)
        let rate = Double(times.count - 1) / (last - first)
        let ratio = rate * interval
        #expect(ratio >= 0.9 && ratio <= 1.1, "\(stream) at \(interval) s: \(rate) Hz delivered", sourceLocation: sourceLocation)
        let gaps = steps.filter { $0 > 1.8 * interval }.count
        #expect(Double(gaps) <= 0.02 * Double(steps.count), "\(gaps) of \(steps.count) gaps over 1.8 periods at \(interval) s",
                sourceLocation: sourceLocation)
    }

    static func norm(_ message: [String: Any], _ field: String) -> Double {
        jsonVector(message[field]).reduce(0) { $0 + $1 * $1 }.squareRoot()
    }

    @Test("four clients at 10, 20, 50 and 100 ms each get their own rate from a still replayed device: CTS checks, |a| = 1 G, |ω| ≈ 0")
    func ratesAndValues() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try Self.stillTrace(in: directory))"])
        defer { _ = daemon.stop() }

        let intervals = [0.01, 0.02, 0.05, 0.1]
        var clients: [SocketClient] = []
        for (n, interval) in intervals.enumerated() {
            let client = try await daemon.connect()
            try await client.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: interval)))
            try await client.send(.subscribe(.init(id: 2, stream: .gyro, interval: interval)))
            let reply = try #require(try await client.reply(2), "client \(n): no reply")
            #expect(reply["ok"] as? Bool == true && reply["interval"] as? Double == interval)
            clients.append(client)
        }
        // Read every client concurrently for 4 s, so none of them lags.
        let received = try await SocketClient.collect(from: clients, for: 4)
        for (n, interval) in intervals.enumerated() {
            let messages = received[n]
            Self.checkStream(messages, stream: "accelerometer", interval: interval)
            Self.checkStream(messages, stream: "gyro", interval: interval)
            // Face up at rest: a = (0, 0, −1) G in the device frame, |a| = 1 ± 0.15 G.
            for message in messages where message["type"] as? String == "accelerometer" {
                #expect(abs(Self.norm(message, "acceleration") - 1) <= 0.15)
                let z = jsonVector(message["acceleration"])[2]
                #expect(z < -0.9, "face up reads z ≈ −1 G: \(message)")
            }
            for message in messages where message["type"] as? String == "gyro" {
                #expect(Self.norm(message, "rotationRate") < 0.01)
            }
            #expect(!messages.contains { $0["type"] as? String == "dropped" }, "a reading client loses nothing")
        }
    }

    @Test("device motion, heading and a pull: the latest value, newer than anything pushed before it")
    func deviceMotionAndPull() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try Self.stillTrace(in: directory))", "--magnetometer-calibration", "trusted"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()

        // Nothing runs yet: a pull says so, naming the sensor to start.
        try await client.send(#"{"op":"get","id":1,"stream":"accelerometer"}"#)
        let empty = try #require(try await client.reply(1))
        #expect(empty["ok"] as? Bool == false)
        let error = empty["error"] as? [String: Any]
        #expect(error?["code"] as? String == "noSample")
        #expect((error?["message"] as? String)?.contains("accelerometer not running") == true, "\(empty)")

        try await client.send(.subscribe(.init(id: 2, stream: .deviceMotion, interval: 0.05, frame: .xMagneticNorthZVertical)))
        try await client.send(.subscribe(.init(id: 3, stream: .heading, interval: 0.1, headingFilter: 0)))
        // The engine's start may take a while on a loaded machine; once it runs, 2 s of values.
        _ = try #require(try await client.next(type: "deviceMotion", timeout: 15), "no deviceMotion in 15 s")
        let messages = try await client.collect(for: 2)
        let motion = try #require(messages.last { $0["type"] as? String == "deviceMotion" }, "no deviceMotion in 2 s")
        #expect(motion["frame"] as? String == "xMagneticNorthZVertical")
        let gravity = motion["gravity"] as? [String: Double] ?? [:]
        #expect(abs((gravity["z"] ?? 0) + 1) < 0.02, "face up: gravity (0, 0, −1): \(gravity)")
        let heading = try #require(messages.last { $0["type"] as? String == "heading" }, "no heading in 2 s")
        // Face up with the field along +x: the top edge (+y) points 90° left of north: 270°.
        #expect(abs((heading["heading"] as? Double ?? .nan) - 270) < 2, "\(heading)")
        #expect(heading["orientation"] as? String == "portrait")

        try await client.send(#"{"op":"get","id":4,"stream":"deviceMotion","frame":"xMagneticNorthZVertical"}"#)
        let pulled = try #require(try await client.reply(4))
        let sample = try #require(pulled["sample"] as? [String: Any], "\(pulled)")
        #expect(sample["type"] as? String == "deviceMotion")
        #expect((sample["timestamp"] as? Double ?? 0) >= (motion["timestamp"] as? Double ?? .infinity))
        #expect(Emulation.bootTime() - (sample["timestamp"] as? Double ?? 0) < 0.5, "the pull returns a current value")

        try await client.send(#"{"op":"get","id":5,"stream":"shake"}"#)
        let refused = try await client.reply(5)
        #expect((refused?["error"] as? [String: Any])?["code"] as? String == "notPullable")
    }

    @Test("the simulated script through the socket: every orientation change and a shake; a client's own shake threshold is its own")
    func eventsFromTheScript() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let watcher = try await daemon.connect()
        try await watcher.send(.subscribe(.init(id: 1, stream: .orientation)))
        try await watcher.send(.subscribe(.init(id: 2, stream: .shake)))
        try await watcher.send(.subscribe(.init(id: 3, stream: .gesture)))
        let numb = try await daemon.connect()
        try await numb.send(#"{"op":"subscribe","id":1,"stream":"shake","detectors":{"shake":{"threshold":5}}}"#)
        #expect(try await numb.reply(1)?["ok"] as? Bool == true)

        // One loop of the script is 22.2 s.
        let received = try await SocketClient.collect(from: [watcher, numb], for: 24)
        let orientations = received[0].filter { $0["type"] as? String == "orientation" }.compactMap { $0["orientation"] as? String }
        for expected in ["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight", "faceUp", "faceDown"] {
            #expect(orientations.contains(expected), "\(expected) missing from \(orientations)")
        }
        let phases = received[0].filter { $0["type"] as? String == "shake" }.compactMap { $0["phase"] as? String }
        #expect(phases.starts(with: ["began", "ended"]) || phases.dropFirst().starts(with: ["began", "ended"]), "\(phases)")
        let gestures = received[0].filter { $0["type"] as? String == "gesture" }.compactMap { $0["gesture"] as? String }
        #expect(gestures.contains("faceDown"), "\(gestures)")
        #expect(!received[1].contains { $0["type"] as? String == "shake" }, "a 5 G threshold sees no 2 G shake")
    }
}
