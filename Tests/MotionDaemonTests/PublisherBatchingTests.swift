import Testing
import MotionCore
import MotionProtocol
@testable import MotionDaemon

/// Subscriptions with a `latency` (batching, as Android's maximum report latency), driven like
/// ``PublisherTests`` by a real engine on synthetic samples: every value arrives, in order,
/// none lost; a batch leaves at the first sample at least `latency` after its oldest value (the
/// values that sample causes start the next batch); and what is held leaves when the
/// subscription is replaced or ends, or a sensor it needs becomes unavailable, and is
/// discarded with a client that went away.
@Suite("Publisher batching")
struct PublisherBatchingTests {
    typealias Bench = PublisherTests.Bench
    static let first = PublisherTests.first
    static let second = PublisherTests.second

    static func timestamps(_ messages: [ServerMessage]) -> [Double] {
        messages.compactMap(\.timestamp)
    }

    /// One release of a batch: the time of the sample that released it and what it carried.
    struct Release {
        var at: Double
        var messages: [OutgoingMessage]
    }

    /// Feeds `samples` one by one; returns what reached `client` on `stream` at each step
    /// that delivered anything.
    static func releases(_ bench: inout Bench, _ samples: [Sample], to client: Recipient, on stream: StreamName) -> [Release] {
        var releases: [Release] = []
        for sample in samples {
            let before = bench.out.count
            bench.feed([sample])
            let new = bench.out[before...].filter { $0.recipient == client && $0.message.stream == stream }.compactMap(\.outgoing)
            if !new.isEmpty { releases.append(Release(at: sample.timestamp, messages: new)) }
        }
        return releases
    }

    @Test("latency 0.5 at 0.01 s: batches of 50 values, each released by the first sample 0.5 s after its oldest; every value, in order, as a non-batching client gets them")
    func batchesBySampleTime() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .accelerometer, interval: 0.01, latency: 0.5))
        try bench.subscribe(Self.second, .init(stream: .accelerometer, interval: 0.01))
        let releases = Self.releases(&bench, PublisherTests.device(seconds: 3.2, kinds: [.accelerometer]), to: Self.first, on: .accelerometer)

        #expect(releases.count == 6, "\(releases.map(\.at))")
        for release in releases {
            let times = Self.timestamps(release.messages.map(\.message))
            let oldest = try #require(times.first)
            #expect(times.count == 50, "at \(release.at): \(times.count) values")
            // Released by the sample that crossed oldest + latency, not before, not after.
            #expect(release.at >= oldest + 0.5 - 1e-9 && release.at < oldest + 0.5 + 0.01 - 1e-9, "oldest \(oldest), released at \(release.at)")
            #expect(times.allSatisfy { $0 < release.at }, "the releasing sample's own value starts the next batch")
            #expect(release.messages.allSatisfy { $0.delivery == .batched(.accelerometer, capacity: 104) })
        }
        // Every value, in order, with nothing lost: the non-batching client's values, of which
        // those of the last 0.2 s are still held.
        let batched = Self.timestamps(bench.messages(to: Self.first, on: .accelerometer))
        let plain = Self.timestamps(bench.messages(to: Self.second, on: .accelerometer))
        #expect(plain.count == 320)
        #expect(batched == Array(plain.prefix(batched.count)))
        #expect(batched.count + bench.publisher.heldCount == plain.count)
        #expect(bench.out.filter { $0.recipient == Self.second }.allSatisfy { $0.outgoing?.delivery == .sample(.accelerometer) })
    }

    @Test("device motion and heading batch like raw samples, decimated to their interval first; one encoding is shared with a non-batching client")
    func deviceMotionAndHeading() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .deviceMotion, interval: 0.02, latency: 1))
        try bench.subscribe(Self.first, .init(stream: .heading, interval: 0.05, headingFilter: 0, latency: 0.3))
        try bench.subscribe(Self.second, .init(stream: .deviceMotion, interval: 0.02))
        try bench.subscribe(Self.second, .init(stream: .heading, interval: 0.05, headingFilter: 0))
        let samples = PublisherTests.device(seconds: 5)
        let motion = Self.releases(&bench, samples, to: Self.first, on: .deviceMotion)
        #expect((3...5).contains(motion.count), "\(motion.map(\.at))")
        #expect(motion.allSatisfy { abs($0.messages.count - 50) <= 1 }, "\(motion.map(\.messages.count))")

        for stream in [StreamName.deviceMotion, .heading] {
            let batched = Self.timestamps(bench.messages(to: Self.first, on: stream))
            let plain = Self.timestamps(bench.messages(to: Self.second, on: stream))
            #expect(!batched.isEmpty && batched == Array(plain.prefix(batched.count)), "\(stream)")
            #expect(zip(batched, batched.dropFirst()).allSatisfy { $0 < $1 })
        }
        let shared = bench.out.filter { $0.recipient == Self.first && $0.message.stream == .deviceMotion }.first
        let same = bench.out.first { $0.recipient == Self.second && $0.message == shared?.message }
        #expect(shared != nil && same != nil)
        #expect(shared?.outgoing?.bytes.withUnsafeBufferPointer { $0.baseAddress } == same?.outgoing?.bytes.withUnsafeBufferPointer { $0.baseAddress },
                "a batched message shares the encoding")
        #expect(bench.publisher.heldCount > 0)
    }

    @Test("unsubscribe releases what the subscription held at once; replacing it does too, and the new one starts afresh")
    func releasedOnUnsubscribeAndReplace() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01, latency: 2))
        bench.feed(PublisherTests.device(seconds: 0.3, kinds: [.gyroscope]))
        #expect(bench.out.isEmpty && bench.publisher.heldCount == 30)
        try bench.unsubscribe(.gyro, client: Self.first)
        #expect(Self.timestamps(bench.messages(to: Self.first, on: .gyro)).count == 30)
        #expect(bench.publisher.heldCount == 0)

        bench.out = []
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01, latency: 2))
        bench.feed(PublisherTests.device(from: 1, seconds: 0.3, kinds: [.gyroscope]))
        #expect(bench.out.isEmpty)
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01))
        #expect(bench.out.count == 30 && bench.publisher.heldCount == 0, "the replaced subscription's values leave with the replacement")
        bench.feed(PublisherTests.device(from: 1.3, seconds: 0.1, kinds: [.gyroscope]))
        let times = Self.timestamps(bench.messages(to: Self.first, on: .gyro))
        #expect(times.count == 40 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(bench.out.suffix(10).allSatisfy { $0.outgoing?.delivery == .sample(.gyro) }, "the new subscription does not batch")
    }

    @Test("a sensor becoming unavailable releases the batches that need it, and only those; an availability that is not a loss releases nothing")
    func releasedOnSensorLoss() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .accelerometer, interval: 0.01, latency: 5))
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01, latency: 5))
        try bench.subscribe(Self.second, .init(stream: .magnetometer, interval: 0.01, latency: 5))
        bench.feed(PublisherTests.device(seconds: 0.5))
        #expect(bench.out.isEmpty && bench.publisher.heldCount == 150)

        bench.publisher.broadcast(.availability(.gyroscope, SensorState(available: true, reason: "idle")), to: .availability, into: &bench.out)
        #expect(bench.out.isEmpty)
        bench.publisher.broadcast(.availability(.gyroscope, SensorState(available: false, reason: "removed")), to: .availability, into: &bench.out)
        #expect(bench.out.allSatisfy { $0.recipient == Self.first && $0.message.stream == .gyro })
        #expect(bench.out.count == 50 && bench.publisher.heldCount == 100)

        // The end of a replay: every sensor goes.
        for kind in SensorKind.allCases {
            bench.publisher.broadcast(.availability(kind, SensorState(available: false, reason: "the replay ended")), to: .availability, into: &bench.out)
        }
        #expect(bench.publisher.heldCount == 0)
        #expect(bench.messages(to: Self.first, on: .accelerometer).count == 50)
        #expect(bench.messages(to: Self.second, on: .magnetometer).count == 50)
    }

    @Test("a client that goes takes what its batches held with it (nobody is left to read it); other clients keep theirs")
    func discardedWithTheClient() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .accelerometer, interval: 0.01, latency: 1))
        try bench.subscribe(Self.second, .init(stream: .accelerometer, interval: 0.01, latency: 1))
        bench.feed(PublisherTests.device(seconds: 0.5, kinds: [.accelerometer]))
        #expect(bench.publisher.heldCount == 100)
        bench.publisher.remove(Self.first)
        #expect(bench.publisher.heldCount == 50)
        bench.feed(PublisherTests.device(from: 0.5, seconds: 1, kinds: [.accelerometer]))
        #expect(!bench.out.contains { $0.recipient == Self.first })
        let times = Self.timestamps(bench.messages(to: Self.second, on: .accelerometer))
        #expect(times.count == 100 && times.first == 0)
    }

    @Test("a batch is due by any sensor's sample time: device motion that stops (the engine loses its gyroscope) still leaves on accelerometer samples")
    func dueOnAnySample() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01, latency: 0.2))
        bench.feed(PublisherTests.device(seconds: 0.1, kinds: [.gyroscope]))
        #expect(bench.out.isEmpty)
        bench.feed(PublisherTests.device(from: 0.1, seconds: 0.15, kinds: [.accelerometer]))
        #expect(bench.messages(to: Self.first, on: .gyro).count == 10)
    }
}
