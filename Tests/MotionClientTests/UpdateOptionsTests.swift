import MotionProtocol
import Testing

@testable import MotionClient

/// The Core Motion-style options of a manager, kept and clamped on its queue. Setting them
/// connects to nothing: these managers name a socket no daemon serves and start no updates.
@Suite("Update intervals, report latencies, heading filter")
struct UpdateOptionsTests {
    static func manager() -> MotionManager {
        MotionManager(socketPath: "/nonexistent/motiond-unit-test.sock")
    }

    @Test("unset intervals are the protocol's default; each stream keeps its own")
    func intervalsPerStream() {
        let manager = Self.manager()
        #expect(manager.accelerometerUpdateInterval == MotionManager.defaultInterval)
        manager.gyroUpdateInterval = 0.05
        manager.deviceMotionUpdateInterval = 0.02
        #expect(manager.gyroUpdateInterval == 0.05)
        #expect(manager.deviceMotionUpdateInterval == 0.02)
        #expect(manager.accelerometerUpdateInterval == MotionManager.defaultInterval)
        #expect(manager.magnetometerUpdateInterval == MotionManager.defaultInterval)
    }

    @Test("an interval below the protocol's minimum is the minimum")
    func shortestInterval() {
        let manager = Self.manager()
        manager.accelerometerUpdateInterval = 0.001
        #expect(manager.accelerometerUpdateInterval == Wire.minimumInterval)
        manager.magnetometerUpdateInterval = -1
        #expect(manager.magnetometerUpdateInterval == Wire.minimumInterval)
    }

    @Test("a latency is 0 for NaN and negative values, at most the protocol's maximum, else as given")
    func latencies() {
        #expect(MotionManager.clampedLatency(.nan) == 0)
        #expect(MotionManager.clampedLatency(-0.5) == 0)
        #expect(MotionManager.clampedLatency(0.25) == 0.25)
        #expect(MotionManager.clampedLatency(3600) == Wire.maximumLatency)
        let manager = Self.manager()
        #expect(manager.headingMaximumReportLatency == 0)
        manager.accelerometerMaximumReportLatency = 3600
        manager.gyroMaximumReportLatency = 0.5
        #expect(manager.accelerometerMaximumReportLatency == Wire.maximumLatency)
        #expect(manager.gyroMaximumReportLatency == 0.5)
    }

    @Test("the heading filter is never negative; nothing runs until updates start")
    func headingFilter() {
        let manager = Self.manager()
        #expect(manager.headingFilter == 1)
        manager.headingFilter = -5
        #expect(manager.headingFilter == 0)
        #expect(!manager.isAccelerometerActive && !manager.isHeadingActive)
        #expect(manager.accelerometerData == nil)
    }
}
