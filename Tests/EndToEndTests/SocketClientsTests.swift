import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// Many clients on one daemon, some of them hostile: a client that never reads, one that sends
/// garbage, one that sends an endless line, thousands that come and go. None of them may
/// affect a well-behaved client, stall the pipeline, or leak descriptors.
@Suite("Socket clients: isolation, errors, lifecycle")
struct SocketClientsTests {
    @Test("a stuck client and a garbage-sending client do not disturb a reading one; the stuck one learns what it lost")
    func hostileClients() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }

        // Never reads: four 100 Hz streams fill its socket buffer and its queue within seconds.
        let stuck = try await daemon.connect()
        for (id, stream) in [StreamName.deviceMotion, .accelerometer, .gyro, .magnetometer].enumerated() {
            try await stuck.send(.subscribe(.init(id: id, stream: stream, interval: 0.01)))
        }
        let reader = try await daemon.connect()
        try await reader.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.02)))
        #expect(try await reader.reply(1)?["ok"] as? Bool == true)

        // Garbage: error replies naming the problem, then a disconnect.
        let garbage = try await daemon.connect()
        try await garbage.send(#"{"op":"fly","id":7}"#)
        let unknown = try await garbage.reply(7)
        #expect(errorCode(unknown) == "unknownOp")
        try await garbage.send(#"{"op":"subscribe","id":8,"stream":"teleport"}"#)
        #expect(errorCode(try await garbage.reply(8)) == "unknownStream")
        try await garbage.send(#"{"op":"subscribe","id":9,"stream":"gyro","interval":"fast"}"#)
        let badValue = try await garbage.reply(9)
        #expect(errorCode(badValue) == "invalidValue")
        #expect(((badValue?["error"] as? [String: Any])?["message"] as? String)?.contains("interval") == true)
        // In one write: the daemon may hang up before a twelfth separate send.
        try await garbage.send(bytes: Array(String(repeating: "this is not json\n", count: 12).utf8))
        let closing = try await garbage.collect(for: 2)
        #expect(closing.contains { errorCode($0) == "tooManyErrors" })
        #expect(closing.last?["type"] as? String == "goodbye")
        #expect(garbage.closedByPeer, "a client that keeps sending garbage is disconnected")
        #expect(!garbage.resetByPeer)

        // An endless line: refused and disconnected, without waiting for its end. The client
        // sends on after the goodbye: its bytes are taken and dropped (no EPIPE), and it reads
        // the goodbye and an end of file, not a reset for the bytes the daemon did not read.
        let endless = try await daemon.connect()
        try await endless.send(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: Wire.maximumLineLength + 100_000))
        let cut = try await endless.collect(for: 2)
        #expect(cut.contains { errorCode($0) == "lineTooLong" })
        #expect(cut.last?["type"] as? String == "goodbye")
        #expect(endless.closedByPeer)
        #expect(!endless.resetByPeer)

        // Meanwhile the reader got everything at its rate.
        let messages = try await reader.collect(for: 4)
        SocketStreamTests.checkStream(messages, stream: "accelerometer", interval: 0.02)
        #expect(!messages.contains { $0["type"] as? String == "dropped" })

        // The stuck client now reads: what it missed was dropped, counted, and reported.
        let backlog = try await stuck.collect(for: 3)
        let drops = backlog.filter { $0["type"] as? String == "dropped" }
        #expect(!drops.isEmpty, "\(backlog.count) messages, no drop report")
        let dropped = drops.compactMap { $0["count"] as? Int }.reduce(0, +)
        #expect(dropped > 100, "\(dropped) samples reported dropped")
        // And it is served normally afterwards.
        #expect(try await stuck.next(type: "deviceMotion") != nil)
        #expect(daemon.process.isRunning)
    }

    @Test("thousands of connect/disconnect cycles leave the daemon's descriptors and heap as they were")
    func connectDisconnectCycles() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--log-level", "warning"])
        defer { _ = daemon.stop() }
        // One round of what the cycles do first: Dispatch opens its timer descriptors lazily,
        // on the first sensor timer, and keeps them.
        let first = try await daemon.connect()
        try await first.send(.subscribe(.init(id: 1, stream: .gyro, interval: 0.01)))
        #expect(try await first.next(type: "gyro") != nil)
        try await first.send(.unsubscribe(id: 1, stream: .gyro))
        #expect(try await first.reply(1) != nil)
        var requests = 1
        func status() async throws -> [String: Any] {
            requests += 1
            try await first.send(.status(id: requests))
            // Generous: the daemon may still be working through thousands of hang-ups.
            return try #require(try await first.reply(requests, timeout: 30)?["status"] as? [String: Any])
        }
        // Some clients subscribe (starting a sensor) before they vanish; none waits for its
        // hello. Then the daemon catches up with the hang-ups: only `first` is left.
        func cycles(_ count: Int) async throws -> [String: Any] {
            for cycle in 0..<count {
                let client = try await SocketClient(path: daemon.socket)
                if cycle % 10 == 0 { try await client.send(.subscribe(.init(id: 1, stream: .gyro, interval: 0.01))) }
            }
            let deadline = Date().addingTimeInterval(20)
            while true {
                let current = try await status()
                let gyroscope = (current["sensors"] as? [String: [String: Any]])?["gyroscope"]
                if (current["clients"] as? Int == 1 && gyroscope?["period"] == nil) || Date() > deadline { return current }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        // Four thousand warm up what the daemon keeps (dictionary capacities, Dispatch's caches
        // and threads). After that the heap in use still wanders from round to round (measured
        // over 4000 connections: 0.1–0.5 MB, before and after the access policy came, a
        // dictionary resize or Dispatch's caches at a new peak of waiting hang-ups), so one round
        // cannot tell a leak from that; a leak grows every round alike.
        let warm = try await cycles(4000)
        try await Task.sleep(for: .milliseconds(500))
        let before = daemon.descriptorCount
        var heap = try #require(warm["heapInUse"] as? Int)
        var growths: [Int] = []
        var after = warm
        for _ in 0..<2 {
            after = try await cycles(4000)
            let now = after["heapInUse"] as? Int ?? .max
            growths.append(now - heap)
            heap = now
        }
        #expect(after["clients"] as? Int == 1, "every hang-up noticed")
        // The last subscriber's sensor stops a moment after its hang-up is counted (the source
        // is updated off the pipeline, and its reading thread's wake-up pipe closes when that
        // thread ends): give the count that moment.
        let settled = Date().addingTimeInterval(5)
        while daemon.descriptorCount != before && Date() < settled { try await Task.sleep(for: .milliseconds(50)) }
        #expect(daemon.descriptorCount == before, "descriptors before \(before), after \(daemon.descriptorCount)")
        // The heap in use, not the resident size (which keeps freed memory): anything a
        // connection leaves behind (its sources, buffers, subscriptions: hundreds of bytes
        // at least) would show as more than 128 bytes per connection in both rounds.
        #expect(growths.min()! < 4000 * 128, "the heap grew by \(growths) bytes in two rounds of 4000 connections")
        let sensors = after["sensors"] as? [String: [String: Any]]
        #expect(sensors?["gyroscope"]?["period"] == nil, "the gyroscope stops once its subscribers are gone")
    }

    @Test("sensors run only while needed, at the fastest subscriber's period; the rate drops when it leaves")
    func sensorsFollowSubscriptions() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let watcher = try await daemon.connect()
        func periods() async throws -> [String: Double] {
            try await watcher.send(.status(id: 99))
            let status = try #require(try await watcher.reply(99)?["status"] as? [String: Any])
            let sensors = status["sensors"] as? [String: [String: Any]] ?? [:]
            return sensors.compactMapValues { $0["period"] as? Double }
        }
        #expect(try await periods().isEmpty, "nothing subscribed: every sensor idle")

        let slow = try await daemon.connect()
        try await slow.send(.subscribe(.init(id: 1, stream: .orientation)))
        _ = try await slow.reply(1)
        #expect(try await periods() == ["accelerometer": 0.02], "orientation needs only the accelerometer")

        let fast = try await daemon.connect()
        try await fast.send(.subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.01, frame: .xMagneticNorthZVertical)))
        _ = try await fast.reply(1)
        #expect(try await periods() == ["accelerometer": 0.01, "gyroscope": 0.01, "magnetometer": 0.01])

        try await fast.send(.unsubscribe(id: 2, stream: .deviceMotion))
        #expect(try await fast.reply(2)?["ok"] as? Bool == true)
        #expect(try await periods() == ["accelerometer": 0.02])
        try await fast.send(.unsubscribe(id: 3, stream: .deviceMotion))
        #expect(errorCode(try await fast.reply(3)) == "notSubscribed")

        // A 1 s subscriber next to nothing faster: the slowest hardware period, decimated.
        try await fast.send(.subscribe(.init(id: 4, stream: .gyro, interval: 1)))
        #expect(try await fast.reply(4)?["interval"] as? Double == 1)
        #expect(try await periods() == ["accelerometer": 0.02, "gyroscope": 0.1])
        let gyro = try await fast.collect(for: 3.5).filter { $0["type"] as? String == "gyro" }
        #expect((2...4).contains(gyro.count), "\(gyro.count) gyro messages in 3.5 s at 1 s")
    }

    @Test("SIGTERM: every client gets a goodbye, the daemon exits 0 and removes its socket")
    func goodbyeOnTerminate() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        let client = try await daemon.connect()
        try await client.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.01)))
        #expect(try await client.next(type: "accelerometer") != nil)
        kill(daemon.process.pid, SIGTERM)
        let goodbye = try await client.next(type: "goodbye")
        #expect((goodbye?["reason"] as? String)?.contains("stopping") == true, "\(String(describing: goodbye))")
        #expect(await client.waitForClose())
        #expect(daemon.process.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        _ = daemon.stop()
    }
}
