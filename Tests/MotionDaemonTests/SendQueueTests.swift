import Testing
import MotionCore
import MotionProtocol
@testable import MotionDaemon

/// A client's bounded send queue: which message a full queue gives up (the oldest sample or
/// event, counted; an older state of the same key, silently), what it always keeps (replies,
/// control messages, the partly written head), and when drops are reported.
@Suite("SendQueue")
struct SendQueueTests {
    static func sample(_ kind: SensorKind = .accelerometer, at t: Double) -> OutgoingMessage {
        OutgoingMessage(.sample(Sample(kind: kind, timestamp: t, vector: Vector3(0, 0, -1))))
    }

    static func reply(_ id: Int) -> OutgoingMessage {
        OutgoingMessage(.reply(id: id, .success(.unsubscribed)))
    }

    /// The queued messages as text (the head without its written part).
    static func contents(_ queue: SendQueue) -> [String] {
        var copy = queue
        return copy.takePending(limit: queue.count).map { String(decoding: $0, as: UTF8.self) }
    }

    static func text(_ messages: [OutgoingMessage]) -> [String] {
        messages.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Marks the first `n` queued messages as written.
    static func write(_ n: Int, of queue: inout SendQueue) {
        _ = queue.consume(queue.takePending(limit: n).reduce(0) { $0 + $1.count })
    }

    @Test("samples beyond capacity push out the oldest sample, and each drop is counted")
    func sampleOverflow() {
        var queue = SendQueue(sampleCapacity: 3, eventCapacity: 3)
        let samples = (1...5).map { Self.sample(at: Double($0)) }
        for sample in samples { queue.enqueue(sample) }
        #expect(Self.contents(queue) == Self.text(Array(samples.suffix(3))))
        #expect(queue.totalDropped == [.accelerometer: 2])
    }

    @Test("samples of every sample stream share the capacity; a drop is counted against the stream of the sample dropped")
    func dropCountedPerStream() {
        var queue = SendQueue(sampleCapacity: 2, eventCapacity: 2)
        let gyro = Self.sample(.gyroscope, at: 1)
        let accelerometer = [Self.sample(at: 2), Self.sample(at: 3)]
        for message in [gyro] + accelerometer { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text(accelerometer))
        #expect(queue.totalDropped == [.gyro: 1], "the drop counts against the stream that lost the value")
    }

    @Test("the partly written head is never pushed out: the next oldest sample goes instead")
    func partlyWrittenSample() {
        var queue = SendQueue(sampleCapacity: 2, eventCapacity: 2)
        let samples = (1...3).map { Self.sample(at: Double($0)) }
        queue.enqueue(samples[0])
        queue.enqueue(samples[1])
        #expect(queue.consume(5) == 0)
        #expect(queue.headOffset == 5)
        queue.enqueue(samples[2])
        #expect(Self.contents(queue) == [String(decoding: samples[0].bytes[5...], as: UTF8.self)] + Self.text([samples[2]]))
        #expect(queue.totalDropped == [.accelerometer: 1])
    }

    @Test("a newer state replaces the queued one of the same key, other keys stay, and none of it is a drop")
    func statesReplace() {
        var queue = SendQueue(sampleCapacity: 1, eventCapacity: 1)
        let present = SensorState(available: true, reason: "found")
        let removed = SensorState(available: false, reason: "removed")
        let newest: [OutgoingMessage] = [
            OutgoingMessage(.availability(.gyroscope, present)),
            Self.sample(at: 1),
            OutgoingMessage(.event(.orientation(.portrait, timestamp: 2))),
            OutgoingMessage(.availability(.accelerometer, removed)),
            OutgoingMessage(.calibration(accuracy: .high, calibrationNeeded: false)),
        ]
        queue.enqueue(OutgoingMessage(.event(.orientation(.faceUp, timestamp: 0))))
        queue.enqueue(OutgoingMessage(.availability(.accelerometer, present)))
        queue.enqueue(OutgoingMessage(.calibration(accuracy: .low, calibrationNeeded: true)))
        for message in newest { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text(newest))
        #expect(queue.totalDropped.isEmpty)
        #expect(queue.takeDropReports(now: 0).isEmpty)
    }

    @Test("a partly written state is finished, and the newer one queued behind it")
    func partlyWrittenState() {
        var queue = SendQueue()
        let old = OutgoingMessage(.calibration(accuracy: .low, calibrationNeeded: true))
        let new = OutgoingMessage(.calibration(accuracy: .medium, calibrationNeeded: false))
        queue.enqueue(old)
        _ = queue.consume(3)
        queue.enqueue(new)
        #expect(Self.contents(queue) == [String(decoding: old.bytes[3...], as: UTF8.self)] + Self.text([new]))
    }

    @Test("events beyond eventCapacity push out the oldest event, counted against its stream; samples are not touched")
    func eventOverflow() {
        var queue = SendQueue(sampleCapacity: 4, eventCapacity: 2)
        let tap = OutgoingMessage(.event(.gesture(.tap, timestamp: 1)))
        let sample = Self.sample(at: 1.5)
        let shake = [OutgoingMessage(.event(.shake(.began, timestamp: 2))), OutgoingMessage(.event(.shake(.ended, timestamp: 3)))]
        for message in [tap, sample] + shake { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text([sample] + shake))
        #expect(queue.totalDropped == [.gesture: 1])
    }

    @Test("replies and control messages are always kept, whatever else overflows")
    func alwaysKept() {
        var queue = SendQueue(sampleCapacity: 1, eventCapacity: 1)
        var kept: [OutgoingMessage] = [OutgoingMessage(.hello(Hello(daemon: "motiond", sensors: [:], frames: .xArbitraryZVertical, access: .full)))]
        queue.enqueue(kept[0])
        for id in 1...20 {
            let reply = Self.reply(id)
            kept.append(reply)
            queue.enqueue(reply)
            queue.enqueue(Self.sample(at: Double(id)))
            queue.enqueue(OutgoingMessage(.event(.gesture(.tap, timestamp: Double(id)))))
        }
        let control = [OutgoingMessage(.dropped(stream: .gyro, count: 1, total: 1)), OutgoingMessage(.goodbye(reason: "stopping"))]
        for message in control { queue.enqueue(message) }
        let text = Self.contents(queue)
        #expect(Self.text(kept + control).allSatisfy(text.contains))
        #expect(queue.count == kept.count + control.count + 2)
    }

    @Test("consume(_:) advances through whole and partial messages and returns the replies it completed")
    func consumeCountsReplies() {
        var queue = SendQueue()
        let messages = [Self.reply(1), Self.sample(at: 1), Self.reply(2), Self.reply(3)]
        for message in messages { queue.enqueue(message) }
        let sizes = messages.map(\.bytes.count)
        #expect(queue.queuedBytes == sizes.reduce(0, +))
        #expect(queue.consume(sizes[0] - 1) == 0)
        #expect(queue.consume(1) == 1)
        #expect(queue.consume(sizes[1] + sizes[2] + sizes[3]) == 2)
        #expect(queue.isEmpty)
        #expect(queue.queuedBytes == 0)
        #expect(queue.consume(10) == 0)
    }

    @Test("drop reports wait until samples are at or below half the capacity, come once, then count anew")
    func dropReports() {
        var queue = SendQueue(sampleCapacity: 4, eventCapacity: 4)
        for t in 0..<10 { queue.enqueue(Self.sample(at: Double(t))) }
        #expect(queue.takeDropReports(now: 0).isEmpty)
        Self.write(1, of: &queue)
        #expect(queue.takeDropReports(now: 0).isEmpty)
        Self.write(1, of: &queue)
        let reports = queue.takeDropReports(now: 0)
        #expect(reports.map(\.message) == [.dropped(stream: .accelerometer, count: 6, total: 6)])
        #expect(reports.allSatisfy { $0.delivery == .control })
        #expect(queue.takeDropReports(now: 0).isEmpty)

        for t in 10..<15 { queue.enqueue(Self.sample(at: Double(t))) }
        Self.write(2, of: &queue)
        #expect(queue.takeDropReports(now: 0).map(\.message) == [.dropped(stream: .accelerometer, count: 3, total: 9)])
    }

    @Test("a client that stays behind is told what it lost every second, not only once it drains")
    func dropReportsWhileBehind() {
        var queue = SendQueue(sampleCapacity: 4, eventCapacity: 4)
        for t in 0..<10 { queue.enqueue(Self.sample(at: Double(t))) }
        #expect(queue.takeDropReports(now: 100).isEmpty, "full, and just fallen behind")
        #expect(queue.takeDropReports(now: 100.5).isEmpty)
        #expect(queue.takeDropReports(now: 101).map(\.message) == [.dropped(stream: .accelerometer, count: 6, total: 6)])
        for t in 10..<12 { queue.enqueue(Self.sample(at: Double(t))) }
        #expect(queue.takeDropReports(now: 101.5).isEmpty)
        #expect(queue.takeDropReports(now: 102).map(\.message) == [.dropped(stream: .accelerometer, count: 2, total: 8)])
    }

    @Test("samples are also bounded in bytes: the oldest go until the newest fits")
    func sampleBytesBounded() {
        let samples = (0..<6).map { Self.sample(at: Double($0)) }
        let size = samples[0].bytes.count
        #expect(samples.allSatisfy { $0.bytes.count == size })
        var queue = SendQueue(sampleCapacity: 100, sampleByteCapacity: 3 * size, eventCapacity: 4)
        for message in samples { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text(Array(samples[3...])))
        #expect(queue.totalDropped == [.accelerometer: 3])
        #expect(queue.queuedBytes == 3 * size)
    }

    @Test("messages handed out for writing are neither dropped nor replaced until consumed: the bytes written are whole lines, in order")
    func inTransitUntouched() {
        // The writer takes messages, sends them outside the lock, then consumes what was sent;
        // meanwhile the pipeline keeps enqueueing. Issue 13: a state replaced or a sample dropped
        // in between shifted the queue under the writer and corrupted the stream.
        var queue = SendQueue(sampleCapacity: 2, eventCapacity: 2)
        let first = [OutgoingMessage(.availability(.gyroscope, SensorState(available: true, reason: "found"))),
                     Self.sample(at: 1), Self.sample(at: 2), Self.reply(1)]
        for message in first { queue.enqueue(message) }
        let taken = queue.takePending(limit: 64)
        #expect(taken.map { String(decoding: $0, as: UTF8.self) } == Self.text(first))
        // While those are being written: a newer state of the same key, and samples past capacity.
        let newer = [OutgoingMessage(.availability(.gyroscope, SensorState(available: false, reason: "removed"))),
                     Self.sample(at: 3), Self.sample(at: 4)]
        for message in newer { queue.enqueue(message) }
        // The samples being written could not make room: the newest not being written went.
        #expect(queue.consume(taken.reduce(0) { $0 + $1.count }) == 1, "the reply in the written bytes is completed")
        #expect(Self.contents(queue) == Self.text([newer[0], newer[2]]), "exactly the messages not written remain, whole")
        #expect(queue.totalDropped == [.accelerometer: 1])
        // Once consumed, nothing is held: the oldest sample goes first again.
        let later = [Self.sample(at: 5), Self.sample(at: 6)]
        for message in later { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text([newer[0]] + later))
    }

    @Test("after a partial write only the partly written head stays protected")
    func partialWriteReleasesTheRest() {
        var queue = SendQueue(sampleCapacity: 2, eventCapacity: 2)
        let samples = (1...4).map { Self.sample(at: Double($0)) }
        queue.enqueue(samples[0])
        queue.enqueue(samples[1])
        let taken = queue.takePending(limit: 64)
        #expect(queue.consume(taken[0].count - 1) == 0)
        queue.enqueue(samples[2])
        // The second sample was handed out but not written: it may go now; the head may not.
        #expect(Self.contents(queue) == ["\n"] + Self.text([samples[2]]))
        #expect(queue.totalDropped == [.accelerometer: 1])
    }

    static func batched(_ kind: SensorKind = .accelerometer, at t: Double, capacity: Int) -> OutgoingMessage {
        sample(kind, at: t).batched(capacity: capacity)
    }

    @Test("batched samples: a client that reads each batch before the next is due loses none, however far beyond the sample capacity a batch goes")
    func batchesKept() {
        var queue = SendQueue(sampleCapacity: 8, eventCapacity: 8)
        var t = 0.0
        for _ in 0..<5 {
            // A batch of 50, then the next one arrives before the first is written: both kept.
            let batches = (0..<2).map { _ in (0..<50).map { _ in t += 0.01; return Self.batched(at: t, capacity: 104) } }
            for message in batches.joined() { queue.enqueue(message) }
            // Plain samples of another stream neither push batched ones out nor are pushed out by them.
            for n in 0..<10 { queue.enqueue(Self.sample(.gyroscope, at: t + Double(n))) }
            #expect(queue.count == 108)
            Self.write(queue.count, of: &queue)
        }
        #expect(queue.totalDropped == [.gyro: 10], "only the plain samples beyond their own capacity")
        #expect(queue.takeDropReports(now: 0).map { $0.message } == [.dropped(stream: .gyro, count: 10, total: 10)])
    }

    @Test("batched samples beyond their capacity (a client that stopped reading) push out the oldest of their stream, counted")
    func batchCapacity() {
        var queue = SendQueue()
        let accelerometer = (1...5).map { Self.batched(at: Double($0), capacity: 3) }
        let gyro = (1...2).map { Self.batched(.gyroscope, at: Double($0), capacity: 3) }
        for message in accelerometer + gyro { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text(Array(accelerometer.suffix(3)) + gyro))
        #expect(queue.totalDropped == [.accelerometer: 2])
    }

    @Test("batched samples of every stream share a hard bound in bytes: the oldest go until the newest fits")
    func batchedBytes() {
        let one = Self.batched(at: 1, capacity: 1000).bytes.count
        var queue = SendQueue(batchedByteCapacity: 3 * one)
        let messages = (1...5).map { Self.batched(.gyroscope, at: Double($0), capacity: 1000) }
        for message in messages { queue.enqueue(message) }
        #expect(Self.contents(queue) == Self.text(Array(messages.suffix(3))))
        #expect(queue.totalDropped == [.gyro: 2])
        #expect(SendQueue.defaultBatchedByteCapacity == 4 * 1024 * 1024)
    }
}
