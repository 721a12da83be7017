import MotionCore
import MotionProtocol
import Testing
@testable import MotionDaemon

/// A rate-capped client pulling faster than its cap gets the value it pulled last.
@Suite("PullThrottle")
struct PullThrottleTests {
    static func value(at t: Double) -> ServerMessage {
        .sample(Sample(kind: .accelerometer, timestamp: t, vector: Vector3(0, 0, -1)))
    }

    @Test("within the cap's interval the last value again; at the interval the new one; per client and per request")
    func throttling() {
        var throttle = PullThrottle()
        let key = PullThrottle.Key(stream: .accelerometer)
        let (a, b) = (ClientID(raw: 1), ClientID(raw: 2))
        #expect(throttle.throttled(Self.value(at: 1), key, for: a, minimumInterval: 0.2) == Self.value(at: 1))
        #expect(throttle.throttled(Self.value(at: 1.1), key, for: a, minimumInterval: 0.2) == Self.value(at: 1))
        #expect(throttle.throttled(Self.value(at: 1.1), key, for: b, minimumInterval: 0.2) == Self.value(at: 1.1))
        #expect(throttle.throttled(Self.value(at: 1.1), .init(stream: .accelerometer, frame: .xArbitraryZVertical), for: a,
                                   minimumInterval: 0.2) == Self.value(at: 1.1))
        #expect(throttle.throttled(Self.value(at: 1.2), key, for: a, minimumInterval: 0.2) == Self.value(at: 1.2))
        throttle.forget(a)
        #expect(throttle.throttled(Self.value(at: 1.3), key, for: a, minimumInterval: 0.2) == Self.value(at: 1.3))
    }

    @Test("a value without a timestamp passes unchanged")
    func untimed() {
        var throttle = PullThrottle()
        let calibration = ServerMessage.calibration(accuracy: .low, calibrationNeeded: true)
        #expect(throttle.throttled(calibration, .init(stream: .calibration), for: ClientID(raw: 1), minimumInterval: 1) == calibration)
    }
}
