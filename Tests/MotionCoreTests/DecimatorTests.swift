import Testing
import MotionCore

/// Per-subscription decimation: one sample per interval on average from hardware grids that
/// are even, not a multiple of the interval (52 Hz) or jittery; never more than the hardware
/// gives; a schedule that restarts after a gap; interval 0 passing everything; every sample of a
/// stalling trigger's grid, jittery or not, for a subscriber at the hardware's rate.
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

    /// The times `interval` lets through when each sample comes with its spacing from the one
    /// before, as the daemon and the client library pass it.
    static func deliveredAsTheyCome(_ times: [Double], interval: Double) -> [Double] {
        var decimator = Decimator(interval: interval)
        var last: Double?
        return times.filter { time in
            defer { last = time }
            return decimator.admit(time, period: last.map { time - $0 } ?? 0.01)
        }
    }

    /// A kernel trigger's 100 Hz grid on a stalling CPU, as the system tier's board check saw:
    /// every 37th scan stamped 3–9 ms late, and every 53rd expiry missed, the trigger firing
    /// 13–19 ms after it instead (one scan there, then the timer back on its grid).
    static func stallingGrid() -> [Double] {
        var random = SeededRandom(seed: 7)
        var times: [Double] = []
        var index = 0
        while index < Int(seconds * 100) {
            let onGrid = Double(index) / 100
            if index % 53 == 20 {
                times.append(onGrid + 0.013 + 0.006 * random.unit())
                index += 2
                continue
            }
            times.append(onGrid + (index % 37 == 5 ? 0.003 + 0.006 * random.unit() : 0))
            index += 1
        }
        return times
    }

    /// The same trigger with its stamps wandering (each 0–0.5 ms late), as a loaded emulated CPU
    /// gives them (the system tier's board check lost one scan so): every 53rd expiry a stall of
    /// nine missed ones, the scan after it 5–9 ms late (105–109 ms after the one before), then
    /// the timer back on its grid.
    static func jitteryStallingGrid() -> [Double] {
        var random = SeededRandom(seed: 9)
        var times: [Double] = []
        var index = 0
        while index < Int(seconds * 100) {
            if index % 53 == 20 {
                index += 9
                times.append(Double(index) / 100 + 0.005 + 0.004 * random.unit())
            } else {
                times.append(Double(index) / 100 + 0.0005 * random.unit())
            }
            index += 1
        }
        return times
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

    @Test("a subscriber at the hardware's period gets every sample of a stalling grid, late ones and the on-time one after each")
    func stallingGridEverySample() {
        let times = Self.stallingGrid()
        let delivered = Set(Self.deliveredAsTheyCome(times, interval: 0.01))
        let lost = times.filter { !delivered.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(times.count) samples not delivered, the first at \(lost.prefix(3)) s")
    }

    @Test("a subscriber at the hardware's period gets every sample of a jittery grid whose stalls end in a late scan, whether the stall's spacing is passed as it came or as the nominal period (the daemon's for spacings over 0.1 s)",
          arguments: [false, true])
    func jitteryStallingGridEverySample(nominalForGaps: Bool) {
        let times = Self.jitteryStallingGrid()
        var decimator = Decimator(interval: 0.01)
        var last: Double?
        let delivered = Set(times.filter { time in
            defer { last = time }
            let spacing = last.map { time - $0 } ?? 0.01
            return decimator.admit(time, period: nominalForGaps && spacing > 0.1 ? 0.01 : spacing)
        })
        let lost = times.filter { !delivered.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(times.count) samples not delivered, the first at \(lost.prefix(3)) s")
    }

    @Test("after a gap or a rest's slow samples, a grid twice as fast as the interval is decimated from its first samples: the long spacings let no burst through",
          arguments: [[3.0], Array(stride(from: 2.5, to: 5, by: 0.5))])
    func fasterGridAfterSlowSamples(slow: [Double]) {
        let times = Self.grid(rate: 200, seconds: 2) + slow + Self.grid(rate: 200, from: 5, seconds: 2)
        let delivered = Self.deliveredAsTheyCome(times, interval: 0.01).filter { $0 >= 5 }
        #expect(abs(delivered.count - 200) <= 2, "\(delivered.count) delivered after the slow samples")
        // The median of three still holds a long spacing at the second fast sample, which is
        // delivered too; from there on, one an interval.
        let steady = delivered.dropFirst()
        #expect(zip(steady, steady.dropFirst()).allSatisfy { $1 - $0 > 0.0099 }, "\(delivered.prefix(6))")
    }

    @Test("slower subscribers on a stalling grid get one sample per interval", arguments: [0.02, 0.05, 0.1])
    func stallingGridDecimated(interval: Double) {
        let delivered = Self.deliveredAsTheyCome(Self.stallingGrid(), interval: interval)
        let expected = Self.seconds / interval
        #expect(abs(Double(delivered.count) - expected) <= 0.02 * expected, "\(delivered.count) delivered, \(expected) expected")
    }

    @Test("with the spacings as they come, the gap's long spacing brings no burst: the schedule restarts from the sample")
    func gapRestartsScheduleAsTheyCome() {
        let times = Self.grid(rate: 100, seconds: 1) + Self.grid(rate: 100, from: 1.537, seconds: 1)
        let afterGap = Self.deliveredAsTheyCome(times, interval: 0.1).filter { $0 > 1.5 }
        #expect(afterGap.count == 10)
        #expect(zip(afterGap, afterGap.dropFirst()).allSatisfy { abs($1 - $0 - 0.1) < 1e-9 })
    }

    @Test("the first sample's spacing is a caller's guess: a long one does not let the next sample through early")
    func firstGuessNotKept() {
        var decimator = Decimator(interval: 0.05)
        let times = Self.grid(rate: 100, seconds: 1)
        let delivered = times.enumerated().filter { decimator.admit($1, period: $0 == 0 ? 0.1 : 0.01) }.map(\.element)
        #expect(delivered.count == 20)
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { abs($1 - $0 - 0.05) < 1e-9 }, "\(delivered)")
    }

    @Test("delivering everything, the schedule keeps up with samples slightly faster than the interval: when they come twice as fast, decimation goes on without a pause")
    func everythingThenFaster() {
        let slow = (0..<1000).map { Double($0) * 0.00995 }
        let fast = (1...200).map { slow[slow.count - 1] + Double($0) * 0.005 }
        let delivered = Self.deliveredAsTheyCome(slow + fast, interval: 0.01)
        #expect(delivered.filter { $0 <= slow[slow.count - 1] }.count == slow.count)
        let afterwards = delivered.filter { $0 >= slow[slow.count - 1] }
        #expect(abs(afterwards.count - 101) <= 2, "\(afterwards.count) of the 200 faster samples and the last slow one")
        #expect(zip(afterwards, afterwards.dropFirst()).allSatisfy { $1 - $0 < 0.0151 }, "\(afterwards.prefix(6))")
    }

    @Test("a stamp squashed a microsecond behind the one before (a device clock's line started afresh) is not delivered at the hardware's period; the readings around it are")
    func squashedStampRefused() {
        let grid = Self.grid(rate: 50, seconds: 2)
        let squashed = grid[40] + 1e-6
        let times = Array(grid[...40]) + [squashed] + Array(grid[41...])
        let delivered = Self.deliveredAsTheyCome(times, interval: 0.02)
        #expect(delivered == grid, "\(delivered.count) delivered of \(times.count); the squashed one: \(delivered.contains(squashed))")
    }

    @Test("interval 0 lets every sample through, repeated and irregular times included")
    func zeroInterval() {
        let times = Self.grid(rate: 100) + [10.0, 10.0, 10.003, 10.5, 10.501]
        #expect(Self.delivered(times, interval: 0, period: 0.01) == times)
    }
}
