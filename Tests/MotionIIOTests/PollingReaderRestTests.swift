import MotionCore
import Testing
@testable import MotionIIO

/// Which polled devices may sleep on their accelerometer's motion events at the rest rate.
@Suite("PollingReader at rest")
struct PollingReaderRestTests {
    @Test("an accelerometer sleeps on its motion events; a device read for its gyroscope too (a resting compass) does not, for a turn flat on a table moves nothing those events see; a light never")
    func restsOnEvents() {
        #expect(PollingReader.restsOnEvents([.accelerometer]))
        #expect(PollingReader.restsOnEvents([.accelerometer, .magnetometer]))
        #expect(!PollingReader.restsOnEvents([.accelerometer, .gyroscope]))
        #expect(!PollingReader.restsOnEvents([.gyroscope]))
        #expect(!PollingReader.restsOnEvents([.light]))
    }
}
