import Dispatch
import Foundation
import MotionClient
import MotionCore
import MotionProtocol
import MotionSync
@testable import TestSupport
import Testing

/// MotionClient against a real motiond (sim: and replay: sources): push on the caller's queue,
/// pull, sequences and their cancellation, orientation and shake callbacks, errors, and a
/// reconnection that restores subscriptions after the daemon restarts.
@Suite("MotionClient end to end")
struct MotionClientTests {
    /// Values a handler saw, and on which queue.
    final class Recorder<Value: Sendable>: Sendable {
        private let state = Lock<(values: [Value], errors: [String], offQueue: Int)>(([], [], 0))
        func add(_ value: Value?, _ error: (any Error)?, expected queue: OperationQueue) {
            state.withLock {
                if OperationQueue.current !== queue { $0.offQueue += 1 }
                if let value { $0.values.append(value) }
                if let error { $0.errors.append("\(error)") }
            }
        }
        var values: [Value] { state.withLock { $0.values } }
        var errors: [String] { state.withLock { $0.errors } }
        var offQueue: Int { state.withLock { $0.offQueue } }
    }

    static func poll(timeout: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    static func queue(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// A trace (its path in `directory`) that turns the device face up → portrait →
    /// landscapeLeft, with a shake. Trace convention: +9.81 m/s² on the axis pointing up. Face up
    /// for 1.5 s, upright (portrait) to 4.5 s with a hard shake along x from 2.5 to 3.5 s, then
    /// on the right edge (landscapeLeft: +x up) to 7 s.
    static func eventsTrace(in directory: URL) throws -> String {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for i in 0..<700 {
            let t = Double(i) / 100
            var a = t < 1.5 ? [0, 0, 9.81] : t < 4.5 ? [0, 9.81, 0] : [9.81, 0, 0]
            if (2.5..<3.5).contains(t) { a[0] += 2.5 * 9.81 * sin(2 * .pi * 4 * (t - 2.5)) }
            text += "\(t),0,0,0,\(a[0]),\(a[1]),\(a[2])\n"
        }
        let trace = directory.appendingPathComponent("events.csv").path
        try text.write(toFile: trace, atomically: true, encoding: .utf8)
        return trace
    }

    @Test("push: values at the interval on the caller's queue; pull: nil until the first value, then the latest; availability and activity")
    func pushAndPull() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try SocketStreamTests.stillTrace(in: directory))"])
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)
        #expect(manager.isAccelerometerAvailable && manager.isGyroAvailable && manager.isMagnetometerAvailable && manager.isDeviceMotionAvailable)
        #expect(manager.availableAttitudeReferenceFrames().contains(.xMagneticNorthZVertical))
        #expect(manager.access?.tier == .full)

        let queue = Self.queue("push")
        let pushed = Recorder<AccelerometerData>()
        manager.accelerometerUpdateInterval = 0.05
        manager.startAccelerometerUpdates(to: queue) { data, error in pushed.add(data, error, expected: queue) }
        #expect(manager.isAccelerometerActive && !manager.isGyroActive)
        #expect(manager.gyroData == nil, "nil while not started")
        manager.startGyroUpdates()
        try await Task.sleep(for: .seconds(1.05))
        let gyro = try #require(manager.gyroData)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try #require(manager.gyroData).timestamp > gyro.timestamp, "the latest value")

        let values = pushed.values
        let span = try #require(values.last).timestamp - values[0].timestamp
        #expect(values.count >= 20 && abs(span / Double(values.count - 1) - 0.05) < 0.005, "20 Hz: \(values.count) in \(span) s")
        #expect(pushed.offQueue == 0 && pushed.errors.isEmpty, "\(pushed.errors)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $1.timestamp - $0.timestamp > 0.03 })
        // The replayed device lies face up at rest: |a| ≈ 1 G.
        #expect(values.allSatisfy { abs(Vector3($0.acceleration.x, $0.acceleration.y, $0.acceleration.z).norm - 1) < 0.2 })

        manager.stopAccelerometerUpdates()
        manager.stopAccelerometerUpdates()
        #expect(!manager.isAccelerometerActive && manager.accelerometerData == nil)
        let stopped = pushed.values.count
        try await Task.sleep(for: .milliseconds(300))
        #expect(pushed.values.count <= stopped + 1, "no values after stop")
    }

    @Test("sequences: each with its own interval on one subscription; ending the iteration unsubscribes")
    func sequences() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socket)
        func first(_ count: Int, of sequence: AsyncThrowingStream<GyroData, any Error>) async throws -> [GyroData] {
            var values: [GyroData] = []
            for try await value in sequence {
                values.append(value)
                if values.count == count { break }
            }
            return values
        }
        async let fast = first(50, of: manager.gyroUpdates(interval: 0.01))
        async let slow = first(5, of: manager.gyroUpdates(interval: 0.1))
        let (fastValues, slowValues) = try await (fast, slow)
        let fastSpan = try #require(fastValues.last).timestamp - fastValues[0].timestamp
        let slowSpan = try #require(slowValues.last).timestamp - slowValues[0].timestamp
        #expect(fastSpan > 0.4 && fastSpan < 0.7, "50 values at 100 Hz: \(fastSpan) s")
        #expect(slowSpan > 0.35 && slowSpan < 0.55, "5 values at 10 Hz: \(slowSpan) s")

        // Both sequences ended: the daemon has no gyroscope subscription left.
        let observer = try await daemon.connect()
        var gyroSubscriptions: Any? = 1
        for attempt in 1...30 where gyroSubscriptions != nil {
            try await observer.send(.status(id: attempt))
            let status = try await observer.reply(attempt)?["status"] as? [String: Any]
            gyroSubscriptions = (status?["subscriptions"] as? [String: Any])?["gyro"]
            if gyroSubscriptions != nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(gyroSubscriptions == nil, "unsubscribed when the sequences ended")
    }

    @Test("orientation changes, a shake and the orientation sequence from a replayed trace; a frame the daemon cannot serve is an error")
    func eventsFromReplay() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try Self.eventsTrace(in: directory))"])
        defer { _ = daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socket)

        final class Shakes: MotionResponder {
            let phases = Lock<[String]>([])
            func motionBegan(_ motion: MotionEventSubtype, with event: MotionEvent?) { phases.withLock { $0.append("began") } }
            func motionEnded(_ motion: MotionEventSubtype, with event: MotionEvent?) { phases.withLock { $0.append("ended") } }
            func motionCancelled(_ motion: MotionEventSubtype, with event: MotionEvent?) { phases.withLock { $0.append("cancelled") } }
        }
        let queue = Self.queue("events")
        let responder = Shakes()
        let shakes = manager.addMotionResponder(responder, queue: queue)
        let seen = Recorder<DeviceOrientation>()
        let observation = manager.observeOrientation(on: queue) { seen.add($0, nil, expected: queue) }
        let notified = Lock(0)
        let token = NotificationCenter.default.addObserver(forName: MotionManager.orientationDidChangeNotification, object: manager, queue: nil) { _ in
            notified.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        manager.beginGeneratingDeviceOrientationNotifications()

        var sequence: [DeviceOrientation] = []
        for await orientation in manager.deviceOrientations() {
            sequence.append(orientation)
            if orientation == .landscapeLeft || sequence.count > 5 { break }
        }
        #expect(sequence == [.faceUp, .portrait, .landscapeLeft])
        #expect(await Self.poll(timeout: 2) { seen.values == [.faceUp, .portrait, .landscapeLeft] }, "\(seen.values)")
        #expect(seen.offQueue == 0)
        #expect(manager.orientation == .landscapeLeft)
        // Posted on the manager's own queue: the last may come just after the stream's value.
        #expect(await Self.poll(timeout: 2) { notified.withLock { $0 } >= 3 }, "\(notified.withLock { $0 }) notifications")
        #expect(responder.phases.withLock { $0 } == ["began", "ended"])
        observation.cancel()
        shakes.cancel()
        manager.endGeneratingDeviceOrientationNotifications()

        // No declination configured: true north cannot be served.
        let motion = Recorder<DeviceMotion>()
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: queue) { data, error in motion.add(data, error, expected: queue) }
        #expect(await Self.poll(timeout: 3) { !motion.errors.isEmpty })
        #expect(motion.errors.first?.contains("reference frame unavailable") == true, "\(motion.errors)")
        #expect(motion.values.isEmpty)
    }

    @Test("no daemon: handlers get daemonUnreachable and nothing is available; when it starts, updates begin; after a restart they resume")
    func reconnection() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("motiond.sock").path
        let manager = MotionManager(socketPath: socket)
        #expect(!manager.isAccelerometerAvailable && manager.access == nil)
        let queue = Self.queue("reconnect")
        let states = Recorder<String>()
        let connection = manager.observeConnection(on: queue) { error in states.add(error.map { "\($0)" } ?? "connected", nil, expected: queue) }
        defer { connection.cancel() }
        let motion = Recorder<DeviceMotion>()
        manager.deviceMotionUpdateInterval = 0.02
        manager.startDeviceMotionUpdates(to: queue) { data, error in motion.add(data, error, expected: queue) }
        #expect(await Self.poll(timeout: 2) { !motion.errors.isEmpty })
        #expect(motion.errors.first?.contains("motiond is unreachable") == true, "\(motion.errors)")

        func run() throws -> RunningProcess {
            try RunningProcess([Emulation.motiond, "--no-config", "--source", "sim:", "--socket", socket])
        }
        let first = try run()
        #expect(await Self.poll(timeout: 10) { motion.values.count >= 10 }, "updates start once the daemon is there")
        #expect(manager.isDeviceMotionAvailable)
        let errors = motion.errors.count
        #expect(first.stop() == 0)
        #expect(await Self.poll(timeout: 3) { motion.errors.count > errors }, "the outage reaches the handler: \(motion.errors)")
        #expect(!manager.isDeviceMotionAvailable)

        let second = try run()
        defer { _ = second.stop() }
        let before = motion.values.count
        #expect(await Self.poll(timeout: 10) { motion.values.count >= before + 10 }, "subscriptions restored after the restart")
        #expect(motion.offQueue == 0)
        #expect(manager.isDeviceMotionActive && manager.deviceMotion != nil)
        // The connection observer saw each outage once and each connection.
        let seen = states.values.map { $0 == "connected" ? "connected" : ($0.hasPrefix("motiond is unreachable") ? "unreachable" : $0) }
        #expect(seen == ["unreachable", "connected", "unreachable", "connected"], "\(states.values)")
    }

    @Test("a daemon speaking another protocol version: handlers get protocolMismatch, nothing is available",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 for the fake daemon"))
    func protocolMismatch() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("future.sock").path
        // A future daemon: greets every connection with protocol 2.
        let server = try RunningProcess(["/usr/bin/python3", "-c", """
            import socket, sys
            listener = socket.socket(socket.AF_UNIX); listener.bind(sys.argv[1]); listener.listen(8)
            while True:
                connection, _ = listener.accept()
                connection.sendall(b'{"type":"hello","protocol":2,"daemon":"motiond 9","sensors":{},"frames":[]}\\n')
            """, socket])
        defer { server.forceStop() }
        #expect(await Self.poll(timeout: 5) { FileManager.default.fileExists(atPath: socket) })
        let manager = MotionManager(socketPath: socket)
        let queue = Self.queue("mismatch")
        let gyro = Recorder<GyroData>()
        manager.startGyroUpdates(to: queue) { data, error in gyro.add(data, error, expected: queue) }
        #expect(await Self.poll(timeout: 5) { !gyro.errors.isEmpty })
        #expect(gyro.errors.first?.hasPrefix("protocol mismatch: protocol 2") == true, "\(gyro.errors)")
        #expect(!manager.isGyroAvailable && manager.access == nil)
    }

    @Test("motiond-bench client-bench runs (its figures are for docs/PERFORMANCE.md, not asserted here)")
    func clientBenchRuns() async throws {
        let bench = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motiond-bench").path
        let output = try await Emulation.run([bench, "client-bench", "--motiond", Emulation.motiond, "--duration", "1"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("device motion pushed at 100 Hz:") && output.stdout.contains("latency p50"), "\(output.stdout)")
        #expect(output.stdout.contains("a second consumer at 10 Hz") && output.stdout.contains("accelerometer pulled every 10 ms"))
    }
}
