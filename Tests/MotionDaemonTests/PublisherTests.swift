import Foundation
import Testing
import MotionCore
import MotionProtocol
@testable import MotionDaemon

/// The publisher driven by a real MotionEngine on synthetic samples, as the pipeline drives
/// it: per-client decimation, subscribe and unsubscribe, device motion only when the engine
/// can give it and only in frames it can serve, the sensor needs, detector sets per parameter
/// set, and one encoding per message however many clients get it.
@Suite("Publisher")
struct PublisherTests {
    static let first = Recipient.client(ClientID(raw: 1))
    static let second = Recipient.client(ClientID(raw: 2))
    static let third = Recipient.client(ClientID(raw: 3))

    /// A device lying face up at rest (accelerometer (0, 0, −1) G, gyroscope zero, magnetometer
    /// (20, 0, −44) µT), each sensor at 100 Hz from `start`, with `extra` acceleration (G) added.
    static func device(from start: Double = 0, seconds: Double, kinds: [SensorKind] = SensorKind.motion,
                       extra: (Double) -> Vector3 = { _ in .zero }) -> [Sample] {
        (0..<Int((seconds * 100).rounded())).flatMap { i in
            let t = start + Double(i) / 100
            return kinds.map { kind in
                switch kind {
                case .accelerometer, .baseAccelerometer: Sample(kind: kind, timestamp: t, vector: Vector3(0, 0, -1) + extra(t))
                case .gyroscope, .baseGyroscope: Sample(kind: kind, timestamp: t, vector: .zero)
                case .magnetometer: Sample(kind: kind, timestamp: t, vector: Vector3(20, 0, -44))
                case .light: Sample(kind: kind, timestamp: t, vector: Vector3(320, 0, 0))
                case .proximity: Sample(kind: kind, timestamp: t, vector: Vector3(0.1, 0, 0))
                }
            }
        }
    }

    /// A publisher and the engine that takes every sample first, and what they published.
    struct Bench {
        var engine = MotionEngine()
        var publisher = Publisher(detectors: DetectorConfiguration())
        var out: [Addressed] = []
        /// Device-motion subscriptions that stopped (with why) or resumed (nil), in order.
        var motionChanges: [(client: Recipient, unavailable: DeviceMotionUnavailable?)] = []

        mutating func subscribe(_ client: Recipient, _ request: ClientRequest.Subscription) throws(ProtocolError) {
            _ = try publisher.subscribe(request, recipient: client, engine: engine, into: &out)
        }

        mutating func unsubscribe(_ stream: StreamName, client: Recipient) throws(ProtocolError) {
            try publisher.unsubscribe(stream, recipient: client, into: &out)
        }

        mutating func feed(_ samples: [Sample]) {
            for sample in samples {
                engine.update(sample)
                let notes = publisher.publish(sample, engine: engine, period: 0.01, into: &out)
                motionChanges += notes.deviceMotion.map { ($0.recipient, $0.unavailable) }
            }
        }

        func messages(to client: Recipient, on stream: StreamName) -> [ServerMessage] {
            out.filter { $0.recipient == client && $0.message.stream == stream }.map(\.message)
        }
    }

    @Test("two clients of the accelerometer at 0.01 s and 0.1 s get about 100 and 10 values per second")
    func decimationPerClient() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .accelerometer, interval: 0.01))
        try bench.subscribe(Self.second, .init(stream: .accelerometer, interval: 0.1))
        bench.feed(Self.device(seconds: 10))
        let fast = bench.messages(to: Self.first, on: .accelerometer)
        let slow = bench.messages(to: Self.second, on: .accelerometer)
        #expect(abs(fast.count - 1000) <= 20)
        #expect(abs(slow.count - 100) <= 2)
        #expect(bench.out.allSatisfy { $0.message.stream == .accelerometer })
    }

    @Test("subscribe, subscribe again to replace, then unsubscribe: values stop and the subscription is gone")
    func subscribeUnsubscribe() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.01))
        #expect(bench.publisher.counts == [.gyro: 1])
        bench.feed(Self.device(seconds: 1))
        #expect(bench.messages(to: Self.first, on: .gyro).count == 100)

        try bench.subscribe(Self.first, .init(stream: .gyro, interval: 0.1))
        #expect(bench.publisher.counts == [.gyro: 1])
        #expect(bench.publisher.subscription(.gyro, recipient: Self.first)?.interval == 0.1)
        bench.feed(Self.device(from: 1, seconds: 1))
        #expect(bench.messages(to: Self.first, on: .gyro).count == 110)

        try bench.unsubscribe(.gyro, client: Self.first)
        #expect(bench.publisher.subscription(.gyro, recipient: Self.first) == nil)
        #expect(bench.publisher.counts.isEmpty)
        bench.feed(Self.device(from: 2, seconds: 1))
        #expect(bench.messages(to: Self.first, on: .gyro).count == 110)
    }

    @Test("unsubscribing from a stream the client is not subscribed to throws notSubscribed")
    func notSubscribed() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .gyro))
        try bench.subscribe(Self.second, .init(stream: .accelerometer))
        for (stream, client) in [(StreamName.accelerometer, Self.first), (.gyro, Self.second), (.shake, Self.third)] {
            let error = #expect(throws: ProtocolError.self) { try bench.unsubscribe(stream, client: client) }
            #expect(error?.code == .notSubscribed)
        }
        try bench.unsubscribe(.gyro, client: Self.first)
        #expect(throws: ProtocolError(.notSubscribed, "not subscribed to gyro")) { try bench.unsubscribe(.gyro, client: Self.first) }
        #expect(bench.publisher.counts == [.accelerometer: 1])
    }

    @Test("deviceMotion is sent only once the engine is ready; the subscription learns when it is unavailable and when it resumes")
    func deviceMotionWhenReady() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .deviceMotion, interval: 0.01))
        bench.feed(Self.device(seconds: 0.5, kinds: [.gyroscope]))
        #expect(!bench.engine.isReady)
        #expect(bench.messages(to: Self.first, on: .deviceMotion).isEmpty)
        #expect(bench.motionChanges.map(\.unavailable) == [.warmingUp])

        bench.feed(Self.device(from: 0.5, seconds: 1))
        #expect(bench.engine.isReady)
        let values = bench.messages(to: Self.first, on: .deviceMotion)
        #expect(abs(values.count - 100) <= 2)
        #expect(bench.motionChanges.map(\.unavailable) == [.warmingUp, nil])
        #expect(bench.motionChanges.allSatisfy { $0.client == Self.first })
        for case .deviceMotion(let motion) in values {
            #expect(motion.timestamp >= 0.5)
            #expect(motion.referenceFrame == .xArbitraryZVertical)
        }
    }

    @Test("deviceMotion in xMagneticNorthZVertical is refused with frameUnavailable while the engine has no magnetometer")
    func frameUnavailable() throws {
        var bench = Bench()
        let north = ClientRequest.Subscription(stream: .deviceMotion, frame: .xMagneticNorthZVertical)
        #expect(!bench.engine.magnetometerPresent)
        let error = #expect(throws: ProtocolError.self) { try bench.subscribe(Self.first, north) }
        #expect(error?.code == .frameUnavailable)
        #expect(error?.message.contains("magnetometer") == true)
        #expect(bench.publisher.subscription(.deviceMotion, recipient: Self.first) == nil)
        #expect(bench.publisher.counts.isEmpty)

        try bench.subscribe(Self.second, .init(stream: .deviceMotion, frame: .xArbitraryZVertical))
        bench.engine.magnetometerPresent = true
        try bench.subscribe(Self.first, north)
        #expect(bench.publisher.subscription(.deviceMotion, recipient: Self.first)?.frame == .xMagneticNorthZVertical)
    }

    @Test("the sensor needs follow the subscriptions: sensors per stream and frame, at each subscription's period")
    func needs() throws {
        var bench = Bench()
        bench.engine.magnetometerPresent = true
        #expect(bench.publisher.needs.isEmpty)
        try bench.subscribe(Self.first, .init(stream: .accelerometer, interval: 0.05))
        try bench.subscribe(Self.second, .init(stream: .deviceMotion, interval: 0.02, frame: .xMagneticNorthZVertical))
        try bench.subscribe(Self.second, .init(stream: .heading, interval: 1))
        try bench.subscribe(Self.third, .init(stream: .shake))
        try bench.subscribe(Self.third, .init(stream: .availability))
        let all: Set<SensorKind> = [.accelerometer, .gyroscope, .magnetometer]
        let needs = bench.publisher.needs
        #expect(needs.count == 5)
        #expect(needs.contains { $0.kinds == [.accelerometer] && $0.interval == 0.05 })
        #expect(needs.contains { $0.kinds == all && $0.interval == 0.02 })
        #expect(needs.contains { $0.kinds == all && $0.interval == 1 })
        #expect(needs.contains { $0.kinds == [.accelerometer] && $0.interval == 0.02 })
        #expect(needs.contains { $0.kinds.isEmpty })

        try bench.unsubscribe(.deviceMotion, client: Self.second)
        try bench.unsubscribe(.heading, client: Self.second)
        #expect(!bench.publisher.needs.contains { $0.kinds.contains(.magnetometer) })
    }

    @Test("the rest rate is tolerated while every subscription tolerates it: the D-Bus face's heading does, a socket client's heading does not")
    func restTolerance() throws {
        var bench = Bench()
        bench.engine.magnetometerPresent = true
        #expect(bench.publisher.toleratesRestRate, "nothing subscribed")
        try bench.subscribe(Self.first, .init(stream: .orientation))
        try bench.subscribe(.local(.sensorProxy), .init(stream: .heading, interval: 0.1))
        #expect(bench.publisher.toleratesRestRate)
        try bench.subscribe(Self.second, .init(stream: .heading, interval: 0.1))
        #expect(!bench.publisher.toleratesRestRate, "a socket client asked for headings at 10 Hz")
        try bench.unsubscribe(.heading, client: Self.second)
        #expect(bench.publisher.toleratesRestRate)
    }

    @Test("remove(client) drops every subscription of that client and nothing of the others")
    func removeClient() throws {
        var bench = Bench()
        for stream in [StreamName.accelerometer, .gyro, .deviceMotion, .shake, .calibration] {
            try bench.subscribe(Self.first, .init(stream: stream, interval: 0.01))
        }
        try bench.subscribe(Self.second, .init(stream: .gyro, interval: 0.01))
        bench.publisher.remove(Self.first)
        #expect(bench.publisher.counts == [.gyro: 1])
        #expect(StreamName.allCases.allSatisfy { bench.publisher.subscription($0, recipient: Self.first) == nil })
        bench.feed(Self.device(seconds: 1))
        #expect(!bench.out.contains { $0.recipient == Self.first })
        #expect(bench.messages(to: Self.second, on: .gyro).count == 100)
    }

    @Test("a client with its own detector parameters gets the events of its own detector set, not the default one's")
    func ownDetectors() throws {
        let insensitive: [String: JSONValue] = ["shake": ["threshold": 10]]
        // Still readings end the settle wait after `stillTime`: a patient client lengthens both.
        let patient: [String: JSONValue] = ["orientation": ["settleTime": 1, "stillTime": 1]]
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .shake))
        try bench.subscribe(Self.second, .init(stream: .shake, detectors: insensitive))
        try bench.subscribe(Self.first, .init(stream: .orientation))
        try bench.subscribe(Self.second, .init(stream: .orientation, detectors: patient))
        // 2 s at rest, then 1.5 s of shaking along x (±2.5 G at 4 Hz), then 1.5 s at rest.
        bench.feed(Self.device(seconds: 5) { t in
            (2...3.5).contains(t) ? Vector3(2.5 * sin(2 * .pi * 4 * (t - 2)), 0, 0) : .zero
        })

        let phases = { (client: Recipient) in
            bench.messages(to: client, on: .shake).compactMap { message -> ShakeDetector.Phase? in
                if case .event(.shake(let phase, _)) = message { phase } else { nil }
            }
        }
        #expect(phases(Self.first) == [.began, .ended])
        #expect(phases(Self.second).isEmpty)

        let faceUp = { (client: Recipient) in
            bench.messages(to: client, on: .orientation).compactMap { message -> Double? in
                if case .event(.orientation(.faceUp, let t)) = message { t } else { nil }
            }
        }
        let prompt = try #require(faceUp(Self.first).first)
        let late = try #require(faceUp(Self.second).first)
        #expect(prompt < 0.5)
        #expect(late >= 1 && late < 1.5)
        #expect(faceUp(Self.first).count == 1 && faceUp(Self.second).count == 1)
    }

    @Test("new daemon detector settings reach every detector subscription, with each client's own changes laid over them")
    func replaceDefaultDetectors() throws {
        var bench = Bench()
        try bench.subscribe(Self.first, .init(stream: .shake))
        try bench.subscribe(Self.second, .init(stream: .shake, detectors: ["shake": ["requiredReversals": 3]]))
        var insensitive = DetectorConfiguration()
        insensitive.shake.threshold = 10
        bench.publisher.replaceDefaultDetectors(insensitive)
        #expect(bench.publisher.defaultDetectors == insensitive)
        #expect(bench.publisher.subscription(.shake, recipient: Self.first)?.detectors == insensitive)
        var own = insensitive
        own.shake.requiredReversals = 3
        #expect(bench.publisher.subscription(.shake, recipient: Self.second)?.detectors == own)
        // The shake of ownDetectors() is far below the new threshold: nobody sees it.
        bench.feed(Self.device(seconds: 5) { t in
            (2...3.5).contains(t) ? Vector3(2.5 * sin(2 * .pi * 4 * (t - 2)), 0, 0) : .zero
        })
        #expect(bench.messages(to: Self.first, on: .shake).isEmpty && bench.messages(to: Self.second, on: .shake).isEmpty)
        // New subscriptions start from the new settings too.
        try bench.subscribe(Self.third, .init(stream: .shake))
        #expect(bench.publisher.subscription(.shake, recipient: Self.third)?.detectors == insensitive)
    }

    @Test("every due client is sent the same encoded message")
    func encodedOnce() throws {
        var bench = Bench()
        for client in [Self.first, Self.second] {
            try bench.subscribe(client, .init(stream: .accelerometer, interval: 0.01))
            try bench.subscribe(client, .init(stream: .deviceMotion, interval: 0.01))
        }
        try bench.subscribe(Self.third, .init(stream: .accelerometer, interval: 0.02))
        bench.feed(Self.device(seconds: 0.5))

        for stream in [StreamName.accelerometer, .deviceMotion] {
            let latest = bench.out.filter { $0.message.stream == stream }.suffix(2)
            try #require(latest.count == 2)
            let (a, b) = (latest.first!, latest.last!)
            #expect(a.recipient == Self.first && b.recipient == Self.second || a.recipient == Self.second && b.recipient == Self.first)
            #expect(a.outgoing?.bytes == b.outgoing?.bytes)
            #expect(a.outgoing?.bytes.withUnsafeBufferPointer { $0.baseAddress } == b.outgoing?.bytes.withUnsafeBufferPointer { $0.baseAddress })
        }
    }
}

extension Addressed {
    /// The encoded message a socket client gets (nil for the daemon's own subscribers).
    var outgoing: OutgoingMessage? {
        guard case .client(_, let outgoing) = self else { return nil }
        return outgoing
    }
}
