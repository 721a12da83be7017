import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// The rest rate end to end on an emulated polled accelerometer (a live umockdev testbed, so
/// these belong to the serialized hot-plug suite): read slowly while it lies still and only
/// orientation is wanted, at full rate the moment it moves or a client wants samples, and not
/// a sample lost to the switching.
extension HotplugTests {
    static let restAccelSyspath = "/sys/devices/platform/test-accel/iio:device0"

    /// motiond on a still polled accelerometer (`test-accel.umockdev`, lying portrait, 1 G =
    /// 256 counts) with two clients: `watcher` subscribed to orientation, `asker` for statuses.
    static func restDaemon(configuration: String? = nil) async throws -> (testbed: Testbed, daemon: ServedDaemon, watcher: SocketClient, asker: SocketClient) {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("test-accel.umockdev"))
        let daemon = try ServedDaemon(["--source", "local:"], configuration: configuration, environment: testbed.environment)
        let watcher = try await daemon.connect()
        let asker = try await daemon.connect()
        try await watcher.send(.subscribe(.init(id: 1, stream: .orientation)))
        return (testbed, daemon, watcher, asker)
    }

    /// ``restDaemon(configuration:)`` once the watcher has been told portrait and the still
    /// accelerometer is read every 0.35 s (both expected); `id`: the asker's last request id.
    static func restingDaemon() async throws -> (testbed: Testbed, daemon: ServedDaemon, watcher: SocketClient, asker: SocketClient, id: Int) {
        let (testbed, daemon, watcher, asker) = try await restDaemon()
        var id = 100
        do {
            #expect(try await watcher.next(type: "orientation", timeout: 10)?["orientation"] as? String == "portrait")
            #expect(try await waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 },
                    "still for a second with only orientation wanted: read every 0.35 s")
        } catch {
            _ = daemon.stop()
            throw error
        }
        return (testbed, daemon, watcher, asker, id)
    }

    /// The accelerometer's `restInterval` in a status reply (nil: read at the full rate).
    static func restInterval(_ client: SocketClient, id: Int) async throws -> Double? {
        try await client.send(.status(id: id))
        let status = try #require(try await client.reply(id)?["status"] as? [String: Any])
        let sensors = try #require(status["sensors"] as? [String: Any])
        let accelerometer = try #require(sensors["accelerometer"] as? [String: Any])
        let restInterval = accelerometer["restInterval"] as? Double
        if restInterval != nil {
            // The detectors' 20 ms (a polled device is read at it when it moves), or the 26 Hz
            // an lsm6dsx's list gives for the 20 Hz a buffer samples at rest (and says so) — its
            // 52 Hz while the buffer is reopened for the rest.
            let period = accelerometer["period"] as? Double ?? 0
            #expect([0.02, 1.0 / 26, 1.0 / 52].contains { abs(period - $0) < 1e-9 }, "the hardware period at rest: \(period)")
        }
        return restInterval
    }

    /// Asks for the status until `condition` holds of the rest interval, for up to `timeout` s.
    static func waitForRest(_ client: SocketClient, from id: inout Int, timeout: Double,
                            _ condition: (Double?) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            id += 1
            if condition(try await restInterval(client, id: id)) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("an orientation client alone: a still accelerometer is read every rest interval; a turn brings the full rate back and is reported")
    func restRate() async throws {
        var (testbed, daemon, watcher, asker, id) = try await Self.restingDaemon()
        defer { _ = daemon.stop() }

        // Turned a quarter and set down: reported, and read at full rate while it moves.
        testbed.setAttribute(Self.restAccelSyspath, "in_accel_y_raw", "0\n")
        testbed.setAttribute(Self.restAccelSyspath, "in_accel_x_raw", "256\n")
        let turned = try await watcher.next(type: "orientation", timeout: 10)
        #expect(turned?["orientation"] as? String == "landscapeRight")
        // It wobbles by 0.16 G for a second: asked in the middle, it is read at full rate.
        for i in 0..<20 {
            testbed.setAttribute(Self.restAccelSyspath, "in_accel_z_raw", i % 2 == 0 ? "40\n" : "-40\n")
            try await Task.sleep(for: .milliseconds(50))
            if i == 12 {
                id += 1
                #expect(try await Self.restInterval(asker, id: id) == nil, "moving: full rate")
            }
        }
        testbed.setAttribute(Self.restAccelSyspath, "in_accel_z_raw", "0\n")
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 }, "still again: the rest rate again")
        #expect(try await watcher.next(type: "orientation", timeout: 1)?["orientation"] == nil, "no orientation flapping on the wobble")
    }

    @Test("a rest interval over the fusion's 0.5-s gap (1 s) is not an outage: no attitude restart is logged at rest, nor when a turn ends it")
    func longRestInterval() async throws {
        let (testbed, daemon, watcher, asker) = try await Self.restDaemon(configuration: "rest-interval = 1\n")
        defer { _ = daemon.stop() }
        var id = 100
        #expect(try await watcher.next(type: "orientation", timeout: 10)?["orientation"] as? String == "portrait")
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 1 }, "still: read every second")
        // Four readings a second apart, then a turn (read after a 1-s gap: it ends the rest).
        try await Task.sleep(for: .seconds(4.5))
        testbed.setAttribute(Self.restAccelSyspath, "in_accel_y_raw", "0\n")
        testbed.setAttribute(Self.restAccelSyspath, "in_accel_x_raw", "256\n")
        #expect(try await watcher.next(type: "orientation", timeout: 10)?["orientation"] as? String == "landscapeRight")
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 1 }, "still again")
        let log = daemon.process.stderr
        #expect(log.contains("at rest: read every 1000 ms"), "the rest rate was in force: \(log)")
        #expect(!log.contains("the motion samples stopped"), "\(log)")
    }

    @Test("at rest only the reader wakes — the shared thread of slow reads, the accelerometer having no motion events to sleep on: no other thread of motiond ticks (a global-queue worker once started libdispatch's workqueue monitor, which woke it every second)")
    func restIsQuiet() async throws {
        let (testbed, daemon, watcher, asker, _) = try await Self.restingDaemon()
        defer { _ = daemon.stop() }
        // The code pages are given back two rest readings after the switch; then nothing but
        // the reader has anything to do (no client asks anything in the window).
        try await Task.sleep(for: .seconds(2))
        let before = ThreadSwitches.of(daemon.process.pid)
        try await Task.sleep(for: .seconds(5))
        let after = ThreadSwitches.of(daemon.process.pid)
        let woke = ThreadSwitches.wokeMoreThanOnce(before, after) { $0 == "iio.slow" }
        let reader = after.values.filter { $0.name == "iio.slow" }.map(\.count).reduce(0, +)
            - before.values.filter { $0.name == "iio.slow" }.map(\.count).reduce(0, +)
        #expect(woke.isEmpty, "threads that woke in 5 s at rest: \(woke)")
        #expect(!after.values.contains { $0.name.hasPrefix("poll.") }, "no reader thread of its own at rest: \(after.values.map(\.name))")
        #expect(reader >= 10, "the reader reads every 0.35 s: \(reader) wake-ups in 5 s")
        withExtendedLifetime((testbed, watcher, asker)) {}
    }

    /// KiB of `pid`'s executable's code resident now (its `r-xp` mappings, /proc/PID/smaps).
    static func residentCode(_ pid: Int32) throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        var resident = 0, inCode = false
        // Read to the end: String(contentsOfFile:) stops after its first read of a /proc file
        // (3.6 KB of a sanitized process's 170 KB of smaps).
        let smaps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/smaps")).readToEnd() ?? Data()
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, !first.hasSuffix(":") {
                inCode = fields.count >= 6 && fields[1] == "r-xp" && fields[5] == executable
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let kB = Int(fields[1]) {
                resident += kB
            }
        }
        return resident
    }

    @Test("a client that leaves while the device rests: what serving it faulted in is given back (two rest readings later, 10 s after the last release at the soonest), not only when a rest begins")
    func leavingClientsCode() async throws {
        let (testbed, daemon, watcher, asker, id) = try await Self.restingDaemon()
        defer { _ = daemon.stop() }
        try await Task.sleep(for: .seconds(2))
        let resting = try Self.residentCode(daemon.process.pid)
        try #require(resting > 0, "no resident code of the executable in /proc/\(daemon.process.pid)/smaps")
        var served = 0
        // A visitor: its hello, a status, a tilt subscription (which tolerates the rest) and a
        // pull of the accelerometer's latest value run code the rest loop does not.
        do {
            let visitor = try await daemon.connect()
            _ = try await visitor.hello()
            try await visitor.send(.status(id: 1))
            #expect(try await visitor.reply(1) != nil)
            try await visitor.send(.subscribe(.init(id: 2, stream: .tilt)))
            #expect(try await visitor.reply(2) != nil)
            try await visitor.send(.get(id: 3, stream: .accelerometer, frame: nil, orientation: nil))
            #expect(try await visitor.reply(3) != nil)
            served = try Self.residentCode(daemon.process.pid)
        }
        // Two rest readings after it left, and at least 10 s after the release at rest's start.
        var after = served
        let deadline = Date().addingTimeInterval(12)
        while after >= served && Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
            after = try Self.residentCode(daemon.process.pid)
        }
        #expect(served > resting, "serving the visitor faulted code in: \(resting) → \(served) KiB")
        #expect(after < served, "given back after it left: \(resting) → \(served) → \(after) KiB")
        #expect(try await Self.restInterval(asker, id: id + 1) == 0.35, "still at rest")
        withExtendedLifetime((testbed, watcher)) {}
    }

    @Test("a 100 Hz accelerometer client ends the rest rate at once and gets every sample, across motion, until it leaves")
    func fullRateSubscriber() async throws {
        let (testbed, daemon, watcher, asker) = try await Self.restDaemon()
        defer { _ = daemon.stop() }
        var id = 100
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 })

        let sampler = try await daemon.connect()
        try await sampler.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.01)))
        #expect(try await sampler.reply(1)?["interval"] as? Double == 0.01)
        id += 1
        #expect(try await Self.restInterval(asker, id: id) == nil, "a sample stream keeps the full rate")
        // 1.5 s of samples while the device moves every 150 ms.
        var messages: [[String: Any]] = []
        for i in 0..<10 {
            messages += try await sampler.collect(for: 0.15)
            testbed.setAttribute(Self.restAccelSyspath, "in_accel_x_raw", "\(i % 2 == 0 ? 30 : -30)\n")
        }
        let times = messages.filter { $0["type"] as? String == "accelerometer" }.compactMap { $0["timestamp"] as? Double }
        #expect(times.count >= 100, "\(times.count) samples in 1.5 s at 100 Hz")
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 > 0 }, "in order")
        // The full rate all along: no gap of the rest interval's (0.35 s). Not a latency bound:
        // a loaded machine stalls the reader now and then (147 ms once, in the ThreadSanitizer
        // tier's full run), which is no return to the rest rate.
        #expect(gaps.max().map { $0 < 0.35 / 2 } == true, "the largest gap: \(gaps.max() ?? 0) s")

        try await sampler.send(.unsubscribe(id: 2, stream: .accelerometer))
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 }, "back to the rest rate once it left")
        withExtendedLifetime(watcher) {}  // its orientation subscription is what allows the rest rate
    }
}
