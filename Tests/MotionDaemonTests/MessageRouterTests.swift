import MotionCore
import MotionProtocol
import MotionSync
import Testing
@testable import MotionDaemon

/// Messages reach the daemon's own subscribers as values and the socket clients encoded, a
/// burst in one call each.
@Suite("MessageRouter")
struct MessageRouterTests {
    static let sample = ServerMessage.sample(Sample(kind: .gyroscope, timestamp: 1, vector: .zero))

    @Test("one burst: each local recipient gets its values in order in one call, clients theirs in one outbox call; a recipient not attached gets nothing")
    func routing() {
        let recorder = PipelineTests.Recorder()
        let outbox = PipelineTests.Outbox()
        let calls = Lock(0)
        var router = MessageRouter()
        router.outbox = { batch in
            calls.withLock { $0 += 1 }
            outbox.take(batch)
        }
        router.attach(recorder, as: .printer)
        var parcel = Parcel(Self.sample)
        let calibration = ServerMessage.calibration(accuracy: .low, calibrationNeeded: true)
        router.send([parcel.addressed(to: .local(.printer)), parcel.addressed(to: .client(ClientID(raw: 1))),
                     .local(.tabletMode, calibration), .local(.printer, calibration), parcel.addressed(to: .client(ClientID(raw: 2)))])
        #expect(recorder.all == [Self.sample, calibration])
        #expect(calls.withLock { $0 } == 1)
        #expect(outbox.items.withLock { $0.map(\.recipient) } == [.client(ClientID(raw: 1)), .client(ClientID(raw: 2))])
        router.detach(.printer)
        router.send([.local(.printer, calibration)])
        #expect(recorder.all.count == 2)
        #expect(calls.withLock { $0 } == 1, "nothing for the clients: no outbox call")
    }

    @Test("a parcel is encoded once for all its socket clients, and not at all for local recipients")
    func parcel() {
        var parcel = Parcel(Self.sample)
        guard case .local(.sensorProxy, let value) = parcel.addressed(to: .local(.sensorProxy)) else {
            Issue.record("not a value for the local recipient")
            return
        }
        #expect(value == Self.sample)
        guard case .client(_, let a) = parcel.addressed(to: .client(ClientID(raw: 1))),
              case .client(_, let b) = parcel.addressed(to: .client(ClientID(raw: 2))) else {
            Issue.record("not encoded for clients")
            return
        }
        #expect(a.bytes == Array((Self.sample.line + "\n").utf8))
        #expect(a.bytes.withUnsafeBufferPointer { $0.baseAddress } == b.bytes.withUnsafeBufferPointer { $0.baseAddress })
    }
}
