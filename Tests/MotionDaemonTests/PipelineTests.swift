import Dispatch
import Glibc
import Logging
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync
import Testing
@testable import MotionDaemon

/// The pipeline in process, on the real simulated IMU (`sim:`, read in real time): the client
/// path (hello, replies, values at the asked interval, status, leaving), the daemon's own
/// subscribers (values, never wire requests or JSON), and the status line following the
/// subscriptions.
@Suite("Pipeline")
struct PipelineTests {
    /// What the pipeline handed to the socket clients, and to one of the daemon's subscribers.
    final class Outbox: Sendable {
        let items = Lock<[Addressed]>([])
        func take(_ batch: [Addressed]) { items.withLock { $0 += batch } }
        func messages(to client: ClientID) -> [ServerMessage] {
            items.withLock { $0.filter { $0.recipient == .client(client) }.map(\.message) }
        }
    }

    final class Recorder: LocalSubscriber {
        let messages = Lock<[ServerMessage]>([])
        func deliver(_ messages: [ServerMessage]) { self.messages.withLock { $0 += messages } }
        var all: [ServerMessage] { messages.withLock { $0 } }
    }

    static func pipeline(logger: Logger = Logger(label: "test")) -> Pipeline {
        Pipeline(source: SimulatedSource(), engine: MotionEngine(), detectors: DetectorConfiguration(),
                 allowed: Set(SensorKind.allCases), store: nil, logger: logger)
    }

    /// Waits (up to 5 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test("a client: hello, its subscribe answered with the interval granted, values every 20 ms, status counting it, and its leaving idles the sensors")
    func clientPath() throws {
        let outbox = Outbox()
        let connected = Lock(1)
        let pipeline = Self.pipeline()
        try pipeline.start(clients: { connected.withLock { $0 } }, outbox: outbox.take)
        defer { pipeline.stop() }
        #expect(pipeline.currentStatusLine() == "1 client; sensors idle")

        let client = ClientID(raw: 7)
        pipeline.connected(client, grant: .full)
        pipeline.received(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.02)), from: client, grant: .full)
        #expect(Self.eventually { outbox.messages(to: client).filter { $0.stream == .accelerometer }.count >= 10 })
        let messages = outbox.messages(to: client)
        guard case .hello(let hello) = messages.first else {
            Issue.record("no hello first: \(messages.prefix(2))")
            return
        }
        #expect(hello.sensors[.accelerometer]?.available == true)
        #expect(hello.sensors[.baseAccelerometer]?.available == false)
        #expect(messages[1] == .reply(id: 1, .success(.subscribed(interval: 0.02, available: true))))
        let times = messages.compactMap { message -> Double? in
            guard case .sample(let sample) = message else { return nil }
            return sample.timestamp
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.02) < 1e-6 })
        #expect(pipeline.currentStatusLine() == "1 client; accelerometer every 20 ms")

        pipeline.received(.status(id: 2), from: client, grant: .full)
        #expect(Self.eventually {
            outbox.messages(to: client).contains {
                guard case .reply(id: 2, .success(.status(let status))) = $0 else { return false }
                return status.clients == 1 && status.subscriptions == [.accelerometer: 1] && status.source == "sim:"
            }
        })

        connected.withLock { $0 = 0 }
        pipeline.disconnected(client)
        #expect(Self.eventually { pipeline.currentStatusLine() == "0 clients; sensors idle" })
    }

    @Test("a bad request is answered with its error and changes nothing; a get before any value says which sensor is not running")
    func refusals() throws {
        let outbox = Outbox()
        let pipeline = Self.pipeline()
        try pipeline.start(outbox: outbox.take)
        defer { pipeline.stop() }
        let client = ClientID(raw: 1)
        pipeline.received(.unsubscribe(id: 3, stream: .gyro), from: client, grant: .full)
        pipeline.received(.get(id: 4, stream: .gyro, frame: nil, orientation: nil), from: client, grant: .full)
        #expect(Self.eventually { outbox.messages(to: client).count == 2 })
        let replies = outbox.messages(to: client)
        #expect(replies.first == .reply(id: 3, .failure(ProtocolError(.notSubscribed, "not subscribed to gyro"))))
        guard case .reply(id: 4, .failure(let error)) = replies.last else {
            Issue.record("no refusal of the get: \(replies)")
            return
        }
        #expect(error.code == .noSample)
        #expect(error.message.contains("gyroscope not running"))
        #expect(pipeline.currentStatusLine() == "0 clients; sensors idle")
    }

    @Test("the daemon's own subscriber: attached, it gets the current availability and then values as ServerMessage values, nothing goes to the clients' outbox, and detached it gets nothing more")
    func localSubscriber() throws {
        let outbox = Outbox()
        let recorder = Recorder()
        let pipeline = Self.pipeline()
        try pipeline.start(outbox: outbox.take)
        defer { pipeline.stop() }
        pipeline.attach(recorder, as: .sensorProxy)
        pipeline.subscribe(.sensorProxy, to: .init(stream: .availability))
        pipeline.subscribe(.sensorProxy, to: .init(stream: .gyro, interval: 0.05))
        #expect(Self.eventually { recorder.all.filter { $0.stream == .gyro }.count >= 5 })
        let availability = recorder.all.compactMap { message -> SensorKind? in
            guard case .availability(let kind, _) = message else { return nil }
            return kind
        }
        #expect(Set(availability).isSuperset(of: SensorKind.allCases))
        #expect(!recorder.all.contains { if case .reply = $0 { true } else { false } })
        #expect(outbox.items.withLock { $0.isEmpty })
        #expect(pipeline.currentStatusLine() == "0 clients; gyroscope every 50 ms")

        pipeline.unsubscribe(.sensorProxy, from: .gyro)
        #expect(Self.eventually { pipeline.currentStatusLine() == "0 clients; sensors idle" })
        pipeline.subscribe(.sensorProxy, to: .init(stream: .accelerometer, interval: 0.01))
        pipeline.detach(.sensorProxy)
        #expect(Self.eventually { pipeline.currentStatusLine() == "0 clients; sensors idle" })
        let count = recorder.all.count
        usleep(100_000)
        #expect(recorder.all.count == count)
    }

    @Test("a refused subscription of the daemon's own subscriber is logged as an error naming it and the stream")
    func localRefusal() throws {
        let log = LogRecorder()
        let pipeline = Self.pipeline(logger: log.logger)
        try pipeline.start(outbox: { _ in })
        defer { pipeline.stop() }
        let recorder = Recorder()
        pipeline.attach(recorder, as: .tabletMode)
        pipeline.subscribe(.tabletMode, to: .init(stream: .shake, detectors: ["shake": ["threshold": -1]]))
        #expect(Self.eventually { !log.messages(.error).isEmpty })
        #expect(log.messages(.error).first?.hasPrefix("the tablet-mode switch cannot subscribe to shake: ") == true)
    }
}
