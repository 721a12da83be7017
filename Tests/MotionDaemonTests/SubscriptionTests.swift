import Testing
import MotionCore
import MotionProtocol
@testable import MotionDaemon

/// A subscription as granted: defaults filled in, intervals clamped (sample streams only from
/// below, event streams into the hardware range), the sensors and period it asks for.
@Suite("Subscription")
struct SubscriptionTests {
    static let defaults = DetectorConfiguration()

    @Test("a sample stream without options: 0.1 s, the arbitrary frame, the top edge with a 1° filter, the daemon's detectors")
    func sampleStreamDefaults() throws {
        let subscription = try Subscription(.init(stream: .deviceMotion), defaultDetectors: Self.defaults)
        #expect(subscription.interval == ClientRequest.defaultInterval)
        #expect(subscription.period == 0.1)
        #expect(subscription.frame == .xArbitraryZVertical)
        #expect(subscription.headingOrientation == .portrait)
        #expect(subscription.headingFilter.minimumChange == 1)
        #expect(subscription.detectors == Self.defaults)
        #expect(subscription.kinds == [.accelerometer, .gyroscope])
        #expect(subscription.anchor == nil)
    }

    @Test("a sample stream's interval is clamped to 10 ms from below only; its period to 10–100 ms", arguments: [
        (0.001, 0.01, 0.01), (0.05, 0.05, 0.05), (2.0, 2.0, 0.1),
    ])
    func sampleInterval(asked: Double, interval: Double, period: Double) throws {
        let subscription = try Subscription(.init(stream: .gyro, interval: asked), defaultDetectors: Self.defaults)
        #expect(subscription.interval == interval)
        #expect(subscription.period == period)
        #expect(subscription.decimator.interval == interval)
    }

    @Test("light and proximity are granted 0.1 s at the shortest (their sensors are read at most 10 times a second)", arguments: [
        (StreamName.light, 0.01, 0.1), (.light, 0.3, 0.3), (.proximity, 0.02, 0.1),
    ])
    func scalarInterval(stream: StreamName, asked: Double, interval: Double) throws {
        let subscription = try Subscription(.init(stream: stream, interval: asked), defaultDetectors: Self.defaults)
        #expect(subscription.interval == interval)
        #expect(subscription.period == 0.1)
    }

    @Test("an event stream asks for an accelerometer period: 20 ms by default, clamped to 10–100 ms", arguments: [
        (nil, 0.02), (0.001, 0.01), (0.05, 0.05), (2.0, 0.1),
    ] as [(Double?, Double)])
    func eventInterval(asked: Double?, interval: Double) throws {
        let subscription = try Subscription(.init(stream: .orientation, interval: asked), defaultDetectors: Self.defaults)
        #expect(subscription.interval == interval)
        #expect(subscription.period == interval)
        #expect(subscription.kinds == [.accelerometer])
    }

    @Test("the request's options win over the defaults; detector options are laid over the daemon's detector settings")
    func options() throws {
        var daemon = DetectorConfiguration()
        daemon.orientation.settleTime = 0.4
        var expected = daemon
        expected.shake.threshold = 3
        let shake = try Subscription(.init(stream: .shake, detectors: ["shake": ["threshold": 3]]), defaultDetectors: daemon)
        #expect(shake.detectors == expected)
        let heading = try Subscription(.init(stream: .heading, headingFilter: 0, headingOrientation: .landscapeRight), defaultDetectors: Self.defaults)
        #expect(heading.headingOrientation == .landscapeRight)
        #expect(heading.headingFilter.minimumChange == 0)
        #expect(heading.kinds == Set(SensorKind.motion))
        let motion = try Subscription(.init(stream: .deviceMotion, frame: .xTrueNorthZVertical), defaultDetectors: Self.defaults)
        #expect(motion.frame == .xTrueNorthZVertical)
        #expect(motion.kinds == Set(SensorKind.motion))
    }

    @Test("the daemon's own subscription takes every value at the sensor period")
    func local() {
        var subscription = Subscription(local: .accelerometer, frame: nil, period: 0.02, detectors: Self.defaults)
        #expect(subscription.period == 0.02)
        #expect(subscription.decimator.interval == 0)
        #expect((0..<10).allSatisfy { subscription.decimator.admit(Double($0) * 0.001, period: 0.02) })
    }
}
