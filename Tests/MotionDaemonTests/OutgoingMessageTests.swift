import Testing
import MotionCore
import MotionProtocol
@testable import MotionDaemon

/// A message encoded once for any number of clients: its line and newline as bytes, and how a
/// full send queue may treat it.
@Suite("OutgoingMessage")
struct OutgoingMessageTests {
    @Test("the bytes are the message's line and a newline")
    func bytes() {
        let message = ServerMessage.event(.shake(.began, timestamp: 2.5))
        #expect(OutgoingMessage(message).bytes == Array((message.line + "\n").utf8))
    }

    @Test("a batched copy keeps the message and its bytes (the same storage) and carries its stream and capacity")
    func batched() {
        let message = OutgoingMessage(.sample(Sample(kind: .magnetometer, timestamp: 1, vector: Vector3(20, 0, -44))))
        let copy = message.batched(capacity: 42)
        #expect(copy.delivery == .batched(.magnetometer, capacity: 42))
        #expect(copy.message == message.message && copy.bytes == message.bytes)
        #expect(copy.bytes.withUnsafeBufferPointer { $0.baseAddress } == message.bytes.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("each kind of message has its delivery class", arguments: [
        (ServerMessage.sample(Sample(kind: .gyroscope, timestamp: 0, vector: .zero)), OutgoingMessage.Delivery.sample(.gyro)),
        (.heading(Heading(timestamp: 0, magneticHeading: 0, trueHeading: -1, headingAccuracy: -1, field: MagneticField(.zero)),
                  orientation: .portrait, topEdge: 0), .sample(.heading)),
        (.event(.orientation(.faceUp, timestamp: 0)), .state(key: "orientation")),
        (.availability(.magnetometer, SensorState(available: false, reason: "removed")), .state(key: "availability.magnetometer")),
        (.calibration(accuracy: .low, calibrationNeeded: true), .state(key: "calibration")),
        (.event(.shake(.ended, timestamp: 0)), .event(.shake)),
        (.event(.gesture(.slapLeft, timestamp: 0)), .event(.gesture)),
        (.reply(id: 1, .success(.unsubscribed)), .reply),
        (.reply(id: nil, .failure(ProtocolError(.malformedJSON, "not JSON"))), .reply),
        (.hello(Hello(daemon: "motiond", sensors: [:], frames: .xArbitraryZVertical, access: .full)), .control),
        (.dropped(stream: .gyro, count: 1, total: 1), .control),
        (.goodbye(reason: "bye"), .control),
    ])
    func delivery(message: ServerMessage, delivery: OutgoingMessage.Delivery) {
        #expect(OutgoingMessage(message).delivery == delivery)
    }

    @Test("availability of different sensors has different state keys")
    func availabilityKeys() {
        let state = SensorState(available: true, reason: "found")
        let keys = Set(SensorKind.allCases.map { OutgoingMessage(.availability($0, state)).delivery })
        #expect(keys.count == SensorKind.allCases.count)
    }
}
