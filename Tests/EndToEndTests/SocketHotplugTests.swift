import Foundation
import MotionClient
import MotionCore
import MotionProtocol
@testable import TestSupport
import Testing

/// The socket end to end on emulated hardware read through the real libiio: a live umockdev
/// testbed (so these belong to the serialized hot-plug suite) and `motiond` serving a socket.
extension HotplugTests {
    static let mpu6050Syspath = "/sys/devices/platform/soc/i2c-1/1-0068/iio:device0"

    @Test("buffered mpu6050 through the socket: every scan scaled into the device frame with its kernel timestamp; SIGTERM says goodbye and disables the buffer")
    func bufferedThroughSocket() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = 60
        // Scans wait in the node until the subscription below opens the buffer: none is lost
        // however late that is (their kernel timestamps place them).
        let script = ScanScript.mpu6050Ramp(count: count, firstDelay: 500)
        let scriptPath = dir.appendingPathComponent("feed.script").path
        try script.write(to: URL(fileURLWithPath: scriptPath))
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("mpu6050.umockdev"))
        try testbed.loadScript("/dev/iio:device0", scriptPath)
        let daemon = try ServedDaemon(["--source", "local:"], environment: testbed.environment)
        defer { _ = daemon.stop() }

        let client = try await daemon.connect()
        // Device motion needs both sensors: one request starts the buffer with both enabled.
        try await client.send(.subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.01)))
        try await client.send(.subscribe(.init(id: 2, stream: .accelerometer, interval: 0.01)))
        try await client.send(.subscribe(.init(id: 3, stream: .gyro, interval: 0.01)))
        #expect(try await client.reply(3)?["available"] as? Bool == true)
        var accel: [[String: Any]] = [], gyro: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(10)
        while (accel.count < count || gyro.count < count) && Date() < deadline,
              let message = try await client.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            switch message["type"] as? String {
            case "accelerometer": accel.append(message)
            case "gyro": gyro.append(message)
            default: break
            }
        }
        #expect(accel.count == count && gyro.count == count, "\(accel.count) accelerometer and \(gyro.count) gyro of \(count) scans")
        for (i, (a, w)) in zip(accel, gyro).enumerated() {
            let expected = ScanScript.mpu6050RampExpected(i)
            #expect(a["timestamp"] as? Double == expected.timestamp && w["timestamp"] as? Double == expected.timestamp)
            #expect(zip(jsonVector(a["acceleration"]), expected.acceleration).allSatisfy { abs($0 - $1) < 1e-12 }, "\(a)")
            #expect(zip(jsonVector(w["rotationRate"]), expected.rotationRate).allSatisfy { abs($0 - $1) < 1e-12 }, "\(w)")
        }

        kill(daemon.process.pid, SIGTERM)
        #expect(try await client.next(type: "goodbye") != nil)
        #expect(daemon.process.stop() == 0)
        let attributes = testbed.root + Self.mpu6050Syspath
        let enabled = try String(contentsOfFile: attributes + "/buffer/enable", encoding: .utf8).filter { $0 != "\0" }
        #expect(enabled.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the buffer is disabled at exit")
        let trigger = try String(contentsOfFile: attributes + "/trigger/current_trigger", encoding: .utf8).filter { $0 != "\0" }
        #expect(trigger.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "the trigger motiond attached is detached")
    }

    @Test("a sensor unplugged and replugged mid-stream: availability events to subscribers, then data again",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func unplugThroughSocket() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try ServedDaemon(["--source", "local:"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        try await client.send(.subscribe(.init(id: 1, stream: .availability)))
        try await client.send(.subscribe(.init(id: 2, stream: .gyro, interval: 0.02)))
        try await client.send(.subscribe(.init(id: 3, stream: .accelerometer, interval: 0.02)))
        var gyroTimes: [Double] = []
        var availability: [(Bool, String)] = []
        var accelAfterLoss = 0
        func pump(until done: () -> Bool, timeout: Double) async throws -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while !done(), Date() < deadline, let message = try await client.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
                switch message["type"] as? String {
                case "gyro": gyroTimes.append(message["timestamp"] as? Double ?? .nan)
                case "accelerometer": if availability.last?.0 == false { accelAfterLoss += 1 }
                case "availability" where message["sensor"] as? String == "gyroscope":
                    availability.append((message["available"] as? Bool ?? true, message["reason"] as? String ?? ""))
                default: break
                }
            }
            return done()
        }
        #expect(try await pump(until: { gyroTimes.count >= 5 }, timeout: 10))
        #expect(availability.first?.0 == true, "the current availability comes with the subscription")

        testbed.uevent(Self.gyroSyspath, "remove")
        testbed.remove(Self.gyroSyspath)
        #expect(try await pump(until: { availability.last?.0 == false && accelAfterLoss >= 10 }, timeout: 10),
                "the gyroscope is reported gone while the accelerometer goes on")
        #expect(availability.last?.1 == "iio:device1 was removed (udev)")

        let before = gyroTimes.count
        try testbed.add(try Self.replugged())
        testbed.uevent(Self.replugSyspath, "add")
        #expect(try await pump(until: { availability.last?.0 == true && gyroTimes.count >= before + 5 }, timeout: 10),
                "the replugged gyroscope is announced and its data resumes")
        #expect(zip(gyroTimes, gyroTimes.dropFirst()).allSatisfy { $0 < $1 }, "timestamps keep increasing across the replug")
        #expect(daemon.process.isRunning)
    }

    @Test("MotionClient: an unplugged gyroscope reaches the handler as sensorUnavailable and makes it unavailable; after the replug values resume",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func unplugThroughClient() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try ServedDaemon(["--source", "local:"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)
        let queue = MotionClientTests.queue("hot-plug")
        let gyro = MotionClientTests.Recorder<GyroData>()
        manager.gyroUpdateInterval = 0.02
        manager.startGyroUpdates(to: queue) { data, error in gyro.add(data, error, expected: queue) }
        #expect(await MotionClientTests.poll(timeout: 10) { gyro.values.count >= 5 })
        #expect(manager.isGyroAvailable)

        testbed.uevent(Self.gyroSyspath, "remove")
        testbed.remove(Self.gyroSyspath)
        #expect(await MotionClientTests.poll(timeout: 10) { !gyro.errors.isEmpty })
        #expect(gyro.errors.first == "gyroscope unavailable: iio:device1 was removed (udev)", "\(gyro.errors)")
        #expect(!manager.isGyroAvailable && manager.isAccelerometerAvailable)

        let before = gyro.values.count
        try testbed.add(try Self.replugged())
        testbed.uevent(Self.replugSyspath, "add")
        #expect(await MotionClientTests.poll(timeout: 10) { gyro.values.count >= before + 5 }, "values resume after the replug")
        #expect(manager.isGyroAvailable && gyro.offQueue == 0)
    }
}
