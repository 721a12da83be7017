@testable import MotionIIO
import Testing

/// The period a buffered device samples at while it rests (`BufferedReader.samplingPeriod`).
@Suite("A resting buffer's sampling period")
struct BufferRestSamplingTests {
    @Test("moving, the period asked; at rest, a quarter of the rest interval, never faster than the period asked nor slower than 20 Hz")
    func samplingPeriod() {
        #expect(BufferedReader.samplingPeriod(period: 0.02, interval: 0.02) == 0.02)
        #expect(BufferedReader.samplingPeriod(period: 0.02, interval: 0.12) == 0.03)
        #expect(BufferedReader.samplingPeriod(period: 0.01, interval: 0.1) == 0.025)
        // The default rest interval and longer: 20 Hz, the slowest at rest (a convertible's two
        // accelerometers' newest scans stay within the hinge's pairing window).
        #expect(BufferedReader.samplingPeriod(period: 0.02, interval: 0.35) == 0.05)
        #expect(BufferedReader.samplingPeriod(period: 0.02, interval: 2) == 0.05)
        // A slow period already: kept.
        #expect(BufferedReader.samplingPeriod(period: 0.1, interval: 0.35) == 0.1)
        // A short rest interval: never faster than asked.
        #expect(BufferedReader.samplingPeriod(period: 0.01, interval: 0.03) == 0.01)
    }
}
