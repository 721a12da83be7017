import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// Batching on the socket of a real `motiond` (`"latency"` on `subscribe`, beyond Core Motion
/// as Android's maximum report latency): a batching client receives its values in bursts about
/// `latency` apart, every value, in order; a client of the same stream without a latency still
/// receives them one by one. Timing is checked loosely (medians, lower bounds that hold by
/// construction), as a loaded machine delays reading but cannot make a batch leave early.
@Suite("Socket batching")
struct SocketBatchingTests {
    /// A message and when the test read it (CLOCK_BOOTTIME seconds, the clock of timestamps).
    struct Arrival: @unchecked Sendable {
        let at: Double
        let message: [String: Any]
        var timestamp: Double? { message["timestamp"] as? Double }
    }

    /// Every message arriving within `seconds`, with its arrival time.
    static func collect(_ client: SocketClient, for seconds: Double) async throws -> [Arrival] {
        let deadline = Date().addingTimeInterval(seconds)
        var arrivals: [Arrival] = []
        while let message = try await client.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            arrivals.append(Arrival(at: Emulation.bootTime(), message: message))
        }
        return arrivals
    }

    /// Arrivals split wherever more than `gap` seconds passed between two.
    static func bursts(_ arrivals: [Arrival], gap: Double) -> [[Arrival]] {
        var bursts: [[Arrival]] = []
        for arrival in arrivals {
            if let last = bursts.last?.last, arrival.at - last.at <= gap {
                bursts[bursts.count - 1].append(arrival)
            } else {
                bursts.append([arrival])
            }
        }
        return bursts
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// Timestamps strictly increase with no gap beyond 1.5 periods: nothing lost.
    static func checkContiguous(_ values: [Arrival], period: Double, _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let times = values.compactMap(\.timestamp)
        #expect(times.count == values.count && times.count > 100, "\(who): \(times.count) values", sourceLocation: sourceLocation)
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "\(who): timestamps strictly increase", sourceLocation: sourceLocation)
        let gaps = steps.filter { $0 > 1.5 * period + 1e-6 }
        #expect(gaps.isEmpty, "\(who): gaps \(gaps)", sourceLocation: sourceLocation)
    }

    @Test("latency 0.5 s at 0.01 s on sim: bursts about 0.5 s apart, each value at least 0.5 s after the oldest of its burst was measured, contiguous and in order; a client without latency gets its values one by one")
    func bursts() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let batching = try await daemon.connect()
        let plain = try await daemon.connect()
        try await batching.send(#"{"op":"subscribe","id":1,"stream":"accelerometer","interval":0.01,"latency":0.5}"#)
        let reply = try #require(try await batching.reply(1))
        #expect(reply["ok"] as? Bool == true && reply["interval"] as? Double == 0.01 && reply["latency"] as? Double == 0.5, "\(reply)")
        try await plain.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.01)))
        let plainReply = try #require(try await plain.reply(1))
        #expect(plainReply["ok"] as? Bool == true && plainReply["latency"] == nil, "\(plainReply)")

        // Both read at once, so neither lags.
        async let batchingArrivals = Self.collect(batching, for: 3.2)
        async let plainArrivals = Self.collect(plain, for: 3.2)
        let (received, plainReceived) = try await (batchingArrivals, plainArrivals)
        #expect(!(received + plainReceived).contains { $0.message["type"] as? String == "dropped" })

        let values = received.filter { $0.message["type"] as? String == "accelerometer" }
        Self.checkContiguous(values, period: 0.01, "batching client")
        let bursts = Self.bursts(values, gap: 0.15)
        #expect((4...8).contains(bursts.count), "\(bursts.count) bursts in 3.2 s: \(bursts.map(\.count))")
        #expect(abs(Self.median(bursts.map { Double($0.count) }) - 50) <= 5, "values per burst: \(bursts.map(\.count))")
        let starts = bursts.compactMap { $0.first?.timestamp }
        let spacing = Self.median(zip(starts, starts.dropFirst()).map { $1 - $0 })
        #expect(abs(spacing - 0.5) <= 0.05, "the oldest values of consecutive bursts are \(spacing) s apart by sample time")
        let arrivalSpacing = Self.median(zip(bursts, bursts.dropFirst()).map { $1[0].at - $0[0].at })
        #expect(arrivalSpacing > 0.3 && arrivalSpacing < 0.8, "bursts arrive \(arrivalSpacing) s apart")
        for burst in bursts {
            // A batch leaves at the first sample 0.5 s after its oldest value, never earlier.
            let oldest = burst[0].timestamp ?? .infinity
            #expect(burst[0].at - oldest >= 0.5 - 0.01, "a burst arrived \(burst[0].at - oldest) s after its oldest value")
        }

        let plainValues = plainReceived.filter { $0.message["type"] as? String == "accelerometer" }
        Self.checkContiguous(plainValues, period: 0.01, "non-batching client")
        // One by one: mostly fresh (a batch is at least 0.5 s old by construction: the firm
        // check), and in more separate arrivals than the batching client's handful of bursts.
        // How many depends on how often this loaded test process gets to read: a loaded run
        // has seen 29 reads beside 7 bursts, so the comparison only asks for twice as many.
        let separate = Self.bursts(plainValues, gap: 0.004).count
        #expect(separate > 2 * bursts.count, "the non-batching client's values arrived in \(separate) separate reads")
        let lateness = Self.median(plainValues.compactMap { arrival in arrival.timestamp.map { arrival.at - $0 } })
        #expect(lateness < 0.25, "the non-batching client's values arrive \(lateness) s after they were measured (median)")
    }

    @Test("unsubscribe delivers what is held before its reply; the end of a replay delivers the rest: nothing waits for samples that never come")
    func releasedBeforeReplyAndAtEnd() async throws {
        // A trace at 100 Hz, lying still; gyr_z counts the rows (1e-5 rad/s each), so the last
        // value shows itself. The replay runs from the daemon's start, and its end is when the
        // sensors become unavailable. The test needs a few seconds of it left once subscribed:
        // when a loaded machine took longer than that to start the daemon, it starts again
        // with a trace long enough for what it saw (the behaviour checked stays the same).
        var seconds = 12.0
        var attempt: (daemon: ServedDaemon, client: SocketClient, rows: Int, directory: URL)?
        while attempt == nil {
            let rows = Int(seconds * 100)
            var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
            for i in 0..<rows { text += "\(Double(i) / 100),0,0,\(Double(i) * 1e-5),0,0,9.80665\n" }
            let directory = try Emulation.temporaryDirectory()
            let trace = directory.appendingPathComponent("counting.csv").path
            try text.write(toFile: trace, atomically: true, encoding: .utf8)
            let launched = Emulation.bootTime()
            let daemon = try ServedDaemon(["--source", "replay:\(trace)"])
            let client = try await daemon.connect()
            try await client.send(#"{"op":"subscribe","id":1,"stream":"accelerometer","interval":0.01,"latency":10}"#)
            try await client.send(#"{"op":"subscribe","id":2,"stream":"gyro","interval":0.01,"latency":10}"#)
            let reply = try #require(try await client.reply(2))
            #expect(reply["latency"] as? Double == 10)
            let elapsed = Emulation.bootTime() - launched
            if elapsed < seconds - 4 {
                try #require(reply["available"] as? Bool == true, "the replay is still running: \(reply)")
                attempt = (daemon, client, rows, directory)
            } else {
                _ = daemon.stop()
                try? FileManager.default.removeItem(at: directory)
                try #require(seconds < 100, "the daemon took \(elapsed) s to answer a subscription")
                seconds = 2 * elapsed + 12
            }
        }
        let (daemon, client, rows, directory) = attempt!
        defer { _ = daemon.stop(); try? FileManager.default.removeItem(at: directory) }

        try await Task.sleep(for: .seconds(1))
        try await client.send(.unsubscribe(id: 3, stream: .accelerometer))
        var accelerometer: [Double] = []
        var gyro: [[String: Any]] = []
        while let message = try await client.next(), message["id"] as? Int != 3 {
            if message["type"] as? String == "accelerometer", let t = message["timestamp"] as? Double { accelerometer.append(t) }
            if message["type"] as? String == "gyro" { gyro.append(message) }
        }
        #expect(accelerometer.count > 50, "the held accelerometer values come before the reply: \(accelerometer.count)")
        #expect(zip(accelerometer, accelerometer.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 < 0.015 })

        // No sample follows the trace's last row: only its end (the sensors unavailable) can
        // release the last batch.
        func index(_ message: [String: Any]) -> Int? {
            (message["rotationRate"] as? [String: Double])?["z"].map { Int(($0 / 1e-5).rounded()) }
        }
        while gyro.last.flatMap(index) != rows - 1, let message = try await client.next(timeout: 20) {
            if message["type"] as? String == "gyro" { gyro.append(message) }
        }
        let indices = gyro.compactMap(index)
        #expect(indices.last == rows - 1, "the last row's value arrived: \(indices.suffix(3))")
        #expect(indices.count > 100 && zip(indices, indices.dropFirst()).allSatisfy { $1 == $0 + 1 }, "every row, in order")
    }
}
