import Testing
import MotionCore

/// Per-subscription decimation: one sample per interval on average from hardware grids that
/// are even, not a multiple of the interval (52 Hz) or jittery; never more than the hardware
/// gives; a schedule that restarts after a gap; interval 0 passing everything.
@Suite("Decimator")
struct DecimatorTests {
    static let seconds = 10.0
    static let intervals = [0.01, 0.02, 0.05, 0.1, 1.0]

    /// Sample times at `rate` Hz for `seconds`, each moved by up to ±`jitter` s (uniform, seeded).
    static func grid(rate: Double, jitter: Double = 0, from start: Double = 0, seconds: Double = seconds) -> [Double] {
        var random = SeededRandom(seed: 52)
        return (0..<Int((seconds * rate).rounded())).map { start + Double($0) / rate + jitter * (2 * random.unit() - 1) }
    }

    /// The times `interval` lets through.
    static func delivered(_ times: [Double], interval: Double, period: Double) -> [Double] {
        var decimator = Decimator(interval: interval)
        return times.filter { decimator.admit($0, period: period) }
    }

    /// Checks the count against one per interval (±2 %, and at most every sample) and the order.
    static func expectRate(_ times: [Double], interval: Double, period: Double) {
        let delivered = delivered(times, interval: interval, period: period)
        let expected = min(seconds / interval, Double(times.count))
        #expect(abs(Double(delivered.count) - expected) <= 0.02 * expected, "\(delivered.count) delivered, \(expected) expected")
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("an even 100 Hz grid gives one sample per interval", arguments: intervals)
    func evenGrid(interval: Double) {
        Self.expectRate(Self.grid(rate: 100), interval: interval, period: 0.01)
    }

    @Test("a 52 Hz grid gives one sample per interval, or every sample for intervals shorter than its period", arguments: intervals)
    func grid52Hz(interval: Double) {
        Self.expectRate(Self.grid(rate: 52), interval: interval, period: 1.0 / 52)
    }

    @Test("a 100 Hz grid with ±2 ms of jitter gives one sample per interval", arguments: intervals)
    func jitteryGrid(interval: Double) {
        Self.expectRate(Self.grid(rate: 100, jitter: 0.002), interval: interval, period: 0.01)
    }

    @Test("after a gap the schedule restarts from the first sample, without a burst to catch up")
    func gapRestartsSchedule() {
        let times = Self.grid(rate: 100, seconds: 1) + Self.grid(rate: 100, from: 1.537, seconds: 1)
        let delivered = Self.delivered(times, interval: 0.1, period: 0.01)
        let afterGap = delivered.filter { $0 > 1.5 }
        #expect(afterGap.count == 10)
        #expect(abs(afterGap[0] - 1.537) < 1e-9)
        #expect(abs(afterGap[1] - 1.637) < 1e-9)
        #expect(zip(afterGap, afterGap.dropFirst()).allSatisfy { abs($1 - $0 - 0.1) < 1e-9 })
    }

    @Test("a short gap keeps the schedule: the next sample on or after the due time is delivered")
    func shortGapKeepsSchedule() {
        let times = Self.grid(rate: 100, seconds: 1).filter { !(0.38...0.45).contains($0) }
        let delivered = Self.delivered(times, interval: 0.1, period: 0.01)
        #expect(delivered.count == 10)
        #expect(delivered.contains { abs($0 - 0.46) < 1e-9 })
        #expect(delivered.contains { abs($0 - 0.5) < 1e-9 })
    }

    @Test("interval 0 lets every sample through, repeated and irregular times included")
    func zeroInterval() {
        let times = Self.grid(rate: 100) + [10.0, 10.0, 10.003, 10.5, 10.501]
        #expect(Self.delivered(times, interval: 0, period: 0.01) == times)
    }
}
