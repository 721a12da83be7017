import MotionCore
import MotionIIO
import MotionProtocol
import Testing
@testable import MotionDaemon

/// What the pipeline answers from its state: pulls, their refusals, and what a new subscriber
/// of a state stream learns at once.
@Suite("PipelineReplies")
struct PipelineRepliesTests {
    static let client = Recipient.client(ClientID(raw: 1))

    static func replies(request: SourceRequest = .none, latest: [Sample] = [], reported: [SensorKind: Bool] = [:],
                        allowed: Set<SensorKind> = Set(SensorKind.allCases)) -> PipelineReplies {
        var sensors = SensorStates(allowed: allowed)
        for (kind, available) in reported {
            _ = sensors.record(kind, SensorAvailability(isAvailable: available, reason: available ? "reading" : "not found"))
        }
        return PipelineReplies(engine: MotionEngine(), publisher: Publisher(detectors: DetectorConfiguration()), sensors: sensors,
                               request: request, latest: Dictionary(uniqueKeysWithValues: latest.map { ($0.kind, $0) }))
    }

    static func refusal(_ replies: PipelineReplies, _ stream: StreamName) -> ProtocolError? {
        do {
            _ = try replies.latestValue(stream, frame: nil, orientation: nil, for: client)
            return nil
        } catch {
            return error
        }
    }

    @Test("no value yet: the sensors not running are named with how to start them; running ones are said to be starting")
    func noSample() throws {
        #expect(Self.refusal(Self.replies(), .deviceMotion)
                == ProtocolError(.noSample, "no deviceMotion value yet: accelerometer and gyroscope not running: subscribe to deviceMotion to start it"))
        let running = try SourceRequest([.accelerometer: 0.02, .gyroscope: 0.02])
        #expect(Self.refusal(Self.replies(request: running), .deviceMotion)
                == ProtocolError(.noSample, "no deviceMotion value yet: the sensors are starting or the fusion is warming up"))
    }

    @Test("availability and event streams are not pullable, each with the way to get it")
    func notPullable() {
        #expect(Self.refusal(Self.replies(), .availability)?.message == "availability has no single latest value: use status, or subscribe to availability")
        #expect(Self.refusal(Self.replies(), .shake) == ProtocolError(.notPullable, "shake is an event stream: subscribe to it"))
    }

    @Test("a raw stream's latest sample is pulled as it was pushed")
    func rawSample() throws {
        let sample = Sample(kind: .gyroscope, timestamp: 12.5, vector: Vector3(0.1, 0, 0))
        #expect(try Self.replies(latest: [sample]).latestValue(.gyro, frame: nil, orientation: nil, for: Self.client) == .sample(sample))
    }

    @Test("a new availability subscriber learns every sensor the source reported, in order, and an excluded one as excluded")
    func availability() throws {
        let replies = Self.replies(reported: [.gyroscope: true, .accelerometer: true, .proximity: false],
                                   allowed: [.accelerometer, .proximity])
        let subscription = try Subscription(.init(stream: .availability), defaultDetectors: DetectorConfiguration())
        let current = replies.currentState(of: .availability, for: subscription)
        #expect(current.map(\.stream) == [.availability, .availability, .availability])
        guard case .availability(.gyroscope, let gyroscope) = current[1] else {
            Issue.record("not the gyroscope second: \(current)")
            return
        }
        #expect(gyroscope == SensorState(available: false, reason: "not used: excluded by --sensors"))
        #expect(replies.hello(.full).sensors[.magnetometer] == SensorState(available: false, reason: "not discovered yet"))
    }
}
