import Foundation
import Glibc
import MotionProtocol
@testable import TestSupport
import Testing

/// The stream under concurrent state changes (issue 13): whatever clients do at once — churn
/// subscriptions, burst requests, half-close, never read, reload the configuration — every
/// line a client receives is one whole JSON object, every request gets its reply, and a
/// well-behaved subscriber loses no sample.
@Suite("Socket concurrency: churn, half-close, chaos")
struct SocketConcurrencyTests {
    /// What one client saw.
    struct Seen: Sendable {
        var lines = 0
        /// Lines that were not one JSON object (at most the first ten, for the message).
        var bad: [String] = []
        var badCount = 0
        /// Request ids sent and not answered.
        var unanswered: Set<Int> = []
        /// Timestamps of the samples of the stream the client watches.
        var times: [Double] = []
        /// Anything else that went wrong.
        var failures: [String] = []

        mutating func take(_ lines: [[UInt8]], watching stream: String? = nil) {
            for line in lines {
                self.lines += 1
                guard let object = try? SocketClient.object(line) else {
                    badCount += 1
                    if bad.count < 10 { bad.append(String(decoding: line.prefix(200), as: UTF8.self)) }
                    continue
                }
                if object["type"] as? String == "reply", let id = object["id"] as? Int { unanswered.remove(id) }
                if let stream, object["type"] as? String == stream, let t = object["timestamp"] as? Double { times.append(t) }
            }
        }

        mutating func merge(_ other: Seen) {
            lines += other.lines
            badCount += other.badCount
            bad += other.bad.prefix(10 - min(10, bad.count))
            unanswered.formUnion(other.unanswered)
            failures += other.failures
        }
    }

    /// Sends `requests(n)` (lines with fresh ids from `nextID`) every `pause` seconds for
    /// `seconds`, reading everything that arrives; then waits for the last replies while they
    /// come: 10 s without a new one is the failure (a sanitized daemon on a loaded machine
    /// answers a flood seconds late, and must still answer everything).
    static func drive(_ client: SocketClient, seconds: Double, pause: Double,
                      requests: (inout Int) -> [(id: Int, line: String)]) async throws -> Seen {
        var seen = Seen()
        var nextID = 1
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let batch = requests(&nextID)
            seen.unanswered.formUnion(batch.map(\.id))
            try await client.send(bytes: Array(batch.map { $0.line + "\n" }.joined().utf8))
            seen.take(client.availableLines())
            try await Task.sleep(for: .seconds(pause))
        }
        var deadline = Date().addingTimeInterval(10)
        while !seen.unanswered.isEmpty && Date() < deadline && !client.closedByPeer {
            let waiting = seen.unanswered.count
            seen.take(client.availableLines())
            if seen.unanswered.count < waiting { deadline = Date().addingTimeInterval(10) }
            try await Task.sleep(for: .milliseconds(5))
        }
        seen.take(client.availableLines())
        return seen
    }

    /// Subscribes to and unsubscribes from the three sensors' streams, 100 times a second.
    static func churn(_ client: SocketClient, seconds: Double) async throws -> Seen {
        var subscribed = false
        return try await drive(client, seconds: seconds, pause: 0.01) { id in
            defer { subscribed.toggle() }
            return ["gyro", "magnetometer", "accelerometer"].map { stream in
                defer { id += 1 }
                let op = subscribed ? #""op":"unsubscribe""# : #""op":"subscribe","interval":0.01"#
                return (id, "{\(op),\"id\":\(id),\"stream\":\"\(stream)\"}")
            }
        }
    }

    /// Watches availability and calibration and asks for the status in bursts of ten.
    static func statusBursts(_ client: SocketClient, seconds: Double) async throws -> Seen {
        try await client.send(#"{"op":"subscribe","id":100000,"stream":"availability"}"#)
        try await client.send(#"{"op":"subscribe","id":100001,"stream":"calibration"}"#)
        return try await drive(client, seconds: seconds, pause: 0.02) { id in
            (0..<10).map { _ in
                defer { id += 1 }
                return (id, "{\"op\":\"status\",\"id\":\(id)}")
            }
        }
    }

    /// Sends `count` status requests (the last one without its line feed when `unterminated`),
    /// shuts down its sending side and reads until the daemon closes the connection.
    static func halfClose(_ daemon: ServedDaemon, count: Int, unterminated: Bool = false) async throws -> (replies: Int, closed: Bool, seen: Seen) {
        let client = try await daemon.connect()
        var text = (1...count).map { "{\"op\":\"status\",\"id\":\($0)}" }.joined(separator: "\n")
        if !unterminated { text += "\n" }
        try await client.send(bytes: Array(text.utf8))
        client.shutdownWrite()
        var seen = Seen()
        seen.unanswered = Set(1...count)
        let deadline = Date().addingTimeInterval(10)
        while !client.closedByPeer && Date() < deadline {
            let lines = client.availableLines()
            seen.take(lines)
            if lines.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        }
        seen.take(client.availableLines())
        return (count - seen.unanswered.count, client.closedByPeer, seen)
    }

    static func expectClean(_ seen: Seen, _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(seen.badCount == 0, "\(who): \(seen.badCount) of \(seen.lines) lines were not JSON, e.g. \(seen.bad)", sourceLocation: sourceLocation)
        #expect(seen.unanswered.isEmpty, "\(who): no reply to \(seen.unanswered.count) requests, e.g. \(seen.unanswered.sorted().prefix(10))",
                sourceLocation: sourceLocation)
        #expect(seen.failures.isEmpty, "\(who): \(seen.failures)", sourceLocation: sourceLocation)
    }

    @Test("subscription churn beside status bursts and state subscribers: every line is JSON, every request answered")
    func churnKeepsTheStreamWhole() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--log-level", "warning"])
        defer { _ = daemon.stop() }
        let seconds = 6.0
        let churner = try await daemon.connect()
        var watchers: [SocketClient] = []
        for _ in 0..<6 { watchers.append(try await daemon.connect()) }
        let results = try await withThrowingTaskGroup(of: (String, Seen).self) { group in
            group.addTask { ("churner", try await Self.churn(churner, seconds: seconds)) }
            for (n, watcher) in watchers.enumerated() {
                group.addTask { ("watcher \(n)", try await Self.statusBursts(watcher, seconds: seconds)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (who, seen) in results.sorted(by: { $0.0 < $1.0 }) {
            #expect(seen.lines > 100, "\(who) received only \(seen.lines) lines")
            Self.expectClean(seen, who)
        }
        #expect(daemon.process.isRunning)
    }

    @Test("a client that half-closes gets a reply to every request it sent, then the daemon closes the connection")
    func halfCloseAnswersEverything() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--log-level", "info"])
        defer { _ = daemon.stop() }
        for round in 0..<20 {
            let (replies, closed, seen) = try await Self.halfClose(daemon, count: 10, unterminated: round % 4 == 3)
            #expect(replies == 10, "round \(round): \(replies) of 10 replies")
            #expect(closed, "round \(round): the daemon did not close after the last reply")
            Self.expectClean(seen, "round \(round)")
        }
        #expect(await daemon.process.wait(timeout: 5) { $0.stderr.contains("closed its sending side; every request answered") })
    }

    @Test("a half-closed subscriber keeps receiving its stream; when it then hangs up it is noticed without a push")
    func halfClosedSubscriberStreams() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try SocketStreamTests.stillTrace(in: directory))"])
        defer { _ = daemon.stop() }

        let streaming = try await daemon.connect()
        try await streaming.send(#"{"op":"subscribe","id":1,"stream":"accelerometer","interval":0.05}"#)
        streaming.shutdownWrite()
        // A loaded machine may take seconds to start the daemon's replay: the reply first.
        #expect(try await streaming.reply(1)?["ok"] as? Bool == true)
        let messages = try await streaming.collect(for: 2)
        #expect(messages.filter { $0["type"] as? String == "accelerometer" }.count >= 20, "the stream goes on after the half-close")
        #expect(!streaming.closedByPeer)

        // Orientation at rest: nothing more is pushed after the first state, so only the
        // hang-up check can find that the client is gone.
        let quiet = try await daemon.connect()
        try await quiet.send(#"{"op":"subscribe","id":1,"stream":"orientation"}"#)
        #expect(try await quiet.reply(1)?["ok"] as? Bool == true)
        quiet.shutdownWrite()
        try await Task.sleep(for: .milliseconds(500))
        shutdown(quiet.fd, Int32(SHUT_RD))
        #expect(await daemon.process.wait(timeout: 10) { $0.stderr.contains("client 2 disconnected: closed the connection") },
                "\(daemon.process.stderr.suffix(2000))")
    }

    @Test("chaos: churn, status bursts, half-closes, stuck readers and reloads at once; a 100 Hz subscriber loses nothing")
    func chaos() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try SocketStreamTests.stillTrace(in: directory)
        let daemon = try ServedDaemon(["--source", "replay:\(trace)", "--log-level", "notice"], configuration: "[detectors.shake]\nthreshold = 2.5\n")
        defer { _ = daemon.stop() }
        let seconds = 6.0
        let interval = 0.01

        let subscriber = try await daemon.connect()
        try await subscriber.send(#"{"op":"subscribe","id":1,"stream":"accelerometer","interval":0.01}"#)
        #expect(try await subscriber.reply(1)?["ok"] as? Bool == true)
        // Never read: their queues fill and drop while everything else goes on.
        var stuck: [SocketClient] = []
        for _ in 0..<2 {
            let client = try await daemon.connect()
            try await client.send(#"{"op":"subscribe","id":1,"stream":"deviceMotion","interval":0.01}"#)
            try await client.send(#"{"op":"subscribe","id":2,"stream":"gyro","interval":0.01}"#)
            stuck.append(client)
        }
        let churners = [try await daemon.connect(), try await daemon.connect()]
        var bursters: [SocketClient] = []
        for _ in 0..<3 { bursters.append(try await daemon.connect()) }

        let results = try await withThrowingTaskGroup(of: (String, Seen).self) { group in
            group.addTask {
                var seen = Seen()
                let end = Date().addingTimeInterval(seconds)
                while Date() < end {
                    seen.take(subscriber.availableLines(), watching: "accelerometer")
                    try await Task.sleep(for: .milliseconds(2))
                }
                return ("subscriber", seen)
            }
            for (n, client) in churners.enumerated() {
                group.addTask { ("churner \(n)", try await Self.churn(client, seconds: seconds)) }
            }
            for (n, client) in bursters.enumerated() {
                group.addTask { ("status bursts \(n)", try await Self.statusBursts(client, seconds: seconds)) }
            }
            group.addTask {
                var seen = Seen()
                var rounds = 0
                let end = Date().addingTimeInterval(seconds)
                // Five rounds at least, however long a loaded machine takes for them.
                while Date() < end || rounds < 5 {
                    let (replies, closed, one) = try await Self.halfClose(daemon, count: 5, unterminated: rounds % 2 == 1)
                    seen.merge(one)
                    if replies != 5 || !closed { seen.failures.append("half-close round \(rounds): \(replies) of 5 replies, closed \(closed)") }
                    rounds += 1
                }
                return ("half-closers", seen)
            }
            group.addTask {
                // Each reload logged before the next SIGHUP: two signals pending at once are one.
                var seen = Seen()
                for round in 1...3 {
                    try await Task.sleep(for: .seconds(seconds / 4))
                    kill(daemon.process.pid, SIGHUP)
                    if !(await daemon.process.wait(timeout: 15) { $0.stderr.components(separatedBy: "configuration reloaded").count - 1 == round }) {
                        seen.failures.append("reload \(round) not logged within 15 s")
                    }
                }
                return ("reloads", seen)
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        for (who, seen) in results.sorted(by: { $0.0 < $1.0 }) {
            Self.expectClean(seen, who)
        }
        let times = try #require(results.first { $0.0 == "subscriber" }?.1.times)
        #expect(Double(times.count) >= 0.8 * seconds / interval, "\(times.count) samples in \(seconds) s")
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "timestamps strictly increase")
        let gaps = steps.filter { $0 > 1.8 * interval }
        #expect(gaps.isEmpty, "\(gaps.count) gaps over 1.8 periods: \(gaps.prefix(5))")
        #expect(daemon.process.isRunning)
        _ = stuck
    }
}
