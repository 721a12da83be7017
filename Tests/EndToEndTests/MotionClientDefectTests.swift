import Dispatch
import Foundation
import MotionClient
import MotionCore
import MotionProtocol
import MotionSync
@testable import TestSupport
import Testing

/// What an application developer met with MotionClient (issue 30 §4), against a real motiond:
/// an orientation observer reading the manager, the first device-motion value after the sensors
/// were idle, a sensor the daemon lacks, a connection outage reported once, the log agreeing
/// with status on an excluded sensor, and the age of a pulled value.
@Suite("MotionClient as an application meets it")
struct MotionClientDefectTests {
    /// What an orientation-change observer saw: the orientation in `userInfo`, and what the
    /// manager's getter read inside the notification.
    final class OrientationNotes: Sendable {
        private let state = Lock<(told: [DeviceOrientation], read: [DeviceOrientation])>(([], []))
        func add(_ notification: Notification, manager: MotionManager) {
            let told = notification.userInfo?[MotionManager.orientationUserInfoKey] as? DeviceOrientation
            let read = manager.orientation
            state.withLock {
                if let told { $0.told.append(told) }
                $0.read.append(read)
            }
        }
        var told: [DeviceOrientation] { state.withLock { $0.told } }
        var read: [DeviceOrientation] { state.withLock { $0.read } }
    }

    /// Follows the replayed orientations with an observer on `queue` (nil: the posting thread)
    /// that reads `manager.orientation` in the notification, the UIKit pattern.
    static func observeOrientationReading(on queue: OperationQueue?) async throws -> OrientationNotes {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try MotionClientTests.eventsTrace(in: directory))"])
        defer { _ = daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socket)
        let notes = OrientationNotes()
        let token = NotificationCenter.default.addObserver(forName: MotionManager.orientationDidChangeNotification,
                                                           object: manager, queue: queue) { notes.add($0, manager: manager) }
        defer { NotificationCenter.default.removeObserver(token) }
        manager.beginGeneratingDeviceOrientationNotifications()
        _ = await MotionClientTests.poll(timeout: 20) { notes.read.last == .landscapeLeft }
        return notes
    }

    @Test("an orientation observer without a queue reads the manager in the notification; userInfo carries the orientation")
    func orientationObserverOnPostingThread() async throws {
        let notes = try await Self.observeOrientationReading(on: nil)
        #expect(notes.told == [.faceUp, .portrait, .landscapeLeft], "\(notes.told)")
        #expect(notes.read.count == notes.told.count && notes.read.last == .landscapeLeft, "\(notes.read)")
    }

    @Test("an orientation observer on an operation queue (as .main) reads the manager in the notification without hanging")
    func orientationObserverOnQueue() async throws {
        let notes = try await Self.observeOrientationReading(on: MotionClientTests.queue("orientation observer"))
        #expect(notes.told == [.faceUp, .portrait, .landscapeLeft], "\(notes.told)")
        #expect(notes.read.count == notes.told.count && notes.read.last == .landscapeLeft, "\(notes.read)")
    }

    /// The device-motion values a subscription at `interval` gets within `seconds` (at least one).
    static func deviceMotion(from client: SocketClient, id: Int, interval: Double, for seconds: Double) async throws -> [[String: Any]] {
        try await client.send(.subscribe(ClientRequest.Subscription(id: id, stream: .deviceMotion, interval: interval)))
        var values = try await client.collect(for: seconds).filter { $0["type"] as? String == "deviceMotion" }
        if values.isEmpty, let late = try await client.next(type: "deviceMotion", timeout: 10) { values.append(late) }
        try await client.send(.unsubscribe(id: id + 1, stream: .deviceMotion))
        _ = try await client.reply(id + 1)
        return values
    }

    static func gravity(_ value: [String: Any]?) -> [Double] {
        let gravity = value?["gravity"] as? [String: Double] ?? [:]
        return ["x", "y", "z"].compactMap { gravity[$0] }
    }

    @Test("after the sensors were idle, the first device-motion value is of the present, not the last one before the gap", arguments: [0.5, 0.02])
    func noStaleValueAfterIdle(interval: Double) async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        let before = try await Self.deviceMotion(from: client, id: 1, interval: interval, for: 1.2)
        // Nobody subscribes: the sensors stop; the simulated device moves on meanwhile.
        try await Task.sleep(for: .seconds(3))
        let after = try await Self.deviceMotion(from: client, id: 3, interval: interval, for: 0.2)
        let last = try #require(before.last), first = try #require(after.first)
        let lastTime = try #require(last["timestamp"] as? Double), firstTime = try #require(first["timestamp"] as? Double)
        #expect(firstTime - lastTime > 2.5, "a value of the second session")
        // Noisy simulated readings never repeat exactly: an equal gravity is the old attitude.
        #expect(Self.gravity(first).count == 3 && Self.gravity(first) != Self.gravity(last),
                "the first value after the gap repeats the last one before it: \(Self.gravity(first))")
        #expect(first["userAcceleration"] as? [String: Double] != last["userAcceleration"] as? [String: Double],
                "the acceleration measured before the gap")
    }

    @Test("after a gap in a replayed trace, no device-motion value carries the attitude from before it")
    func noStaleValueAfterGapInTrace() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Face up for 1 s, nothing for 3 s, then upright (trace units: m/s², +9.81 on the up
        // axis). Each row's gyroscope sample comes first: the one after the gap finds the
        // accelerometer's last reading still face up.
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for i in 0..<100 { lines.append("\(Double(i) / 100),0,0,0,0,0,9.80665") }
        for i in 400..<500 { lines.append("\(Double(i) / 100),0,0,0,0,9.80665,0") }
        let trace = directory.appendingPathComponent("gap.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let run = try await Emulation.run([Emulation.motiond, "--source", "replay:\(trace)", "--replay-fast", "--json",
                                           "--print-motion", "xArbitraryZVertical"])
        #expect(run.status == 0, "\(run.stderr)")
        let motions = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let after = motions.filter { ($0["timestamp"] as? Double ?? 0) >= 4 }
        #expect(after.count >= 90, "values resume after the gap: \(after.count)")
        let stale = after.filter { abs(jsonVector($0["gravity"])[1] + 1) > 1e-3 }
        #expect(stale.isEmpty, "upright after the gap, but: \(stale.prefix(2))")
    }

    @Test("a sensor the daemon lacks: the handler gets sensorUnavailable, the updates end, the sequence throws")
    func missingSensor() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--sensors", "accelerometer", "gyroscope"])
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)
        #expect(!manager.isMagnetometerAvailable && manager.isAccelerometerAvailable)

        let queue = MotionClientTests.queue("magnetometer")
        let pushed = MotionClientTests.Recorder<MagnetometerData>()
        manager.startMagnetometerUpdates(to: queue) { data, error in pushed.add(data, error, expected: queue) }
        #expect(await MotionClientTests.poll(timeout: 10) { !pushed.errors.isEmpty && !manager.isMagnetometerActive })
        #expect(pushed.errors == ["magnetometer unavailable: not used: excluded by --sensors"] && pushed.values.isEmpty && pushed.offQueue == 0,
                "\(pushed.errors)")
        #expect(!manager.isMagnetometerActive)

        manager.startMagnetometerUpdates()
        #expect(await MotionClientTests.poll(timeout: 10) { !manager.isMagnetometerActive }, "pull updates end too")
        #expect(manager.magnetometerData == nil)

        let sequence = manager.magnetometerUpdates()
        let outcome = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    for try await _ in sequence { return "a value" }
                    return "the end, without an error"
                } catch {
                    return "\(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(outcome == "magnetometer unavailable: not used: excluded by --sensors", "\(outcome ?? "neither a value nor an error in 10 s")")

        // Updates started before the manager ever connected: told once (by the availability
        // stream or the subscription's reply, not both), and ended.
        let fresh = MotionManager(socketPath: daemon.socket)
        let early = MotionClientTests.Recorder<MagnetometerData>()
        fresh.startMagnetometerUpdates(to: queue) { data, error in early.add(data, error, expected: queue) }
        #expect(await MotionClientTests.poll(timeout: 10) { !early.errors.isEmpty && !fresh.isMagnetometerActive })
        try await Task.sleep(for: .milliseconds(300))
        #expect(early.errors == ["magnetometer unavailable: not used: excluded by --sensors"], "\(early.errors)")

        // A stream whose sensors are there is unaffected.
        let accelerometer = MotionClientTests.Recorder<AccelerometerData>()
        manager.startAccelerometerUpdates(to: queue) { data, error in accelerometer.add(data, error, expected: queue) }
        #expect(await MotionClientTests.poll(timeout: 10) { accelerometer.values.count >= 3 })
        #expect(manager.isAccelerometerActive && accelerometer.errors.isEmpty)
    }

    @Test("an excluded sensor: the daemon's log says what status says")
    func excludedSensorLogged() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--sensors", "accelerometer", "gyroscope"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        try await client.send(.status(id: 1))
        let status = try #require(try await client.reply(1)?["status"] as? [String: Any])
        let magnetometer = try #require((status["sensors"] as? [String: Any])?["magnetometer"] as? [String: Any])
        #expect(magnetometer["available"] as? Bool == false)
        let reason = try #require(magnetometer["reason"] as? String)
        let log = daemon.process.stderr
        #expect(log.contains("magnetometer unavailable: \(reason)"), "\(log)")
        #expect(!log.contains("magnetometer available"), "\(log)")
    }

    @Test("one outage is reported once to a connection observer, however often the manager retries")
    func outageReportedOnce() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = MotionManager(socketPath: directory.appendingPathComponent("absent.sock").path)
        let outages = Lock<[String]>([])
        let observation = manager.observeConnection(on: MotionClientTests.queue("connection")) { error in
            outages.withLock { $0.append(error.map { "\($0)" } ?? "connected") }
        }
        defer { observation.cancel() }
        // A handler whose updates are the first use of another manager: one outage too.
        let other = MotionManager(socketPath: directory.appendingPathComponent("absent.sock").path)
        let queue = MotionClientTests.queue("handler")
        let handler = MotionClientTests.Recorder<AccelerometerData>()
        other.startAccelerometerUpdates(to: queue) { data, error in handler.add(data, error, expected: queue) }
        // The managers retry after 0.05, 0.1, 0.2, 0.4 s…: several attempts, one outage.
        try await Task.sleep(for: .seconds(1.5))
        let seen = outages.withLock { $0 }
        #expect(seen.count == 1 && seen.first?.hasPrefix("motiond is unreachable: cannot connect to") == true, "\(seen)")
        #expect(handler.errors.count == 1 && handler.errors.first?.hasPrefix("motiond is unreachable: cannot connect to") == true, "\(handler.errors)")
    }

    @Test("get on an idle daemon tells the value's age")
    func pulledValueAge() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        try await client.send(.subscribe(ClientRequest.Subscription(id: 1, stream: .accelerometer, interval: 0.05)))
        _ = try await client.next(type: "accelerometer", timeout: 10)
        try await client.send(.get(id: 2, stream: .accelerometer, frame: nil, orientation: nil))
        let fresh = try #require(try await client.reply(2))
        #expect((fresh["age"] as? Double).map { $0 >= 0 && $0 < 2 } == true, "read now: \(fresh)")
        try await client.send(.unsubscribe(id: 3, stream: .accelerometer))
        _ = try await client.reply(3)
        try await Task.sleep(for: .seconds(2.5))
        try await client.send(.get(id: 4, stream: .accelerometer, frame: nil, orientation: nil))
        let idle = try #require(try await client.reply(4))
        let age = try #require(idle["age"] as? Double, "\(idle)")
        let timestamp = try #require((idle["sample"] as? [String: Any])?["timestamp"] as? Double)
        #expect(age >= 2.4, "the sensor stopped 2.5 s ago: \(idle)")
        // The reply's parsed form carries the age too.
        let line = try JSONSerialization.data(withJSONObject: idle)
        guard case .reply(_, .success(.value(_, let parsed)))? = try ServerMessage.parse(line: Array(line)[...]) else {
            Issue.record("not a get reply: \(idle)")
            return
        }
        #expect(parsed.map { abs($0 - age) < 1e-6 } == true && timestamp > 0)
    }
}
