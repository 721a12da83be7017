import Testing
@testable import MotionCore

/// Stamps for samples that arrive without a timestamp: the jitter of their arrivals smoothed,
/// never after their arrival, the device's real period followed, a batch spread over its
/// period, a gap started afresh.
@Suite("ArrivalTimestamps")
struct ArrivalTimestampsTests {
    /// Sample times `start + n × period` and their arrivals, each late by a delay in
    /// 0.1–40 ms (seeded), as a HID magnetometer's reports under QEMU's TCG.
    static func arrivals(count: Int, period: Double, start: Double = 100, seed: UInt64 = 7) -> (times: [Double], arrivals: [Double]) {
        var random = SeededRandom(seed: seed)
        let times = (0..<count).map { start + Double($0) * period }
        var arrivals = times.map { $0 + 0.0001 + random.unit() * 0.04 }
        // A later sample never arrives before an earlier one (one queue).
        for i in 1..<arrivals.count { arrivals[i] = max(arrivals[i], arrivals[i - 1]) }
        return (times, arrivals)
    }

    static func spacingSpread(_ stamps: ArraySlice<Double>) -> (mean: Double, deviation: Double) {
        let gaps = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        let variance = gaps.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(gaps.count)
        return (mean, variance.squareRoot())
    }

    @Test("jittered arrivals at the nominal period: stamps increase, never after their arrival, 20 ms apart within a fraction of the arrivals' spread, near the true times")
    func smoothsJitter() {
        let (times, arrivals) = Self.arrivals(count: 1500, period: 0.02)
        var filter = ArrivalTimestamps(nominalPeriod: 0.02)
        let stamps = arrivals.flatMap { filter.stamps(count: 1, arrival: $0) }
        #expect(stamps.count == arrivals.count)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(stamps, arrivals).allSatisfy { $0 <= $1 })
        let input = Self.spacingSpread(arrivals[500...]), output = Self.spacingSpread(stamps[500...])
        #expect(input.deviation > 0.008, "the arrivals jitter: \(input)")
        #expect(output.deviation < input.deviation / 10, "smoothed: \(output) against \(input)")
        #expect(abs(output.mean - 0.02) < 0.0002, "\(output)")
        // On the least delayed arrivals: within a few ms of the true times (delays average 20 ms).
        let offsets = zip(stamps[500...], times[500...]).map { $0 - $1 }
        #expect(offsets.allSatisfy { abs($0) < 0.005 }, "\(offsets.min()!)…\(offsets.max()!)")
    }

    @Test("a device whose real period is 20.5 ms, asked for 20: the stamps follow its real spacing")
    func followsTheRealPeriod() {
        let (times, arrivals) = Self.arrivals(count: 2000, period: 0.0205)
        var filter = ArrivalTimestamps(nominalPeriod: 0.02)
        let stamps = arrivals.flatMap { filter.stamps(count: 1, arrival: $0) }
        #expect(abs(filter.slope - 0.0205) < 0.0001, "\(filter.slope)")
        #expect(abs(Self.spacingSpread(stamps[1000...]).mean - 0.0205) < 0.0001)
        // Within a few milliseconds of the true times.
        let offsets = zip(stamps[1000...], times[1000...]).map { $0 - $1 }
        #expect(offsets.allSatisfy { abs($0) < 0.005 }, "\(offsets.min()!)…\(offsets.max()!)")
    }

    @Test("a refill of 17 samples at once: spread back over their period, oldest first, continuing the previous refill")
    func batches() {
        var filter = ArrivalTimestamps(nominalPeriod: 0.02)
        var stamps: [Double] = []
        for n in 1...40 { stamps += filter.stamps(count: 17, arrival: 50 + Double(n) * 17 * 0.02) }
        #expect(stamps.count == 680)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { abs($1 - $0 - 0.02) < 1e-6 }, "evenly 20 ms apart across refills")
        #expect(abs(stamps.last! - (50 + 40 * 17 * 0.02)) < 1e-6, "the newest at its arrival")
    }

    @Test("a backlog flushed at once (arrivals faster than the period): stamps compressed between the previous one and the arrival, still increasing")
    func backlog() {
        var filter = ArrivalTimestamps(nominalPeriod: 0.02)
        var stamps: [Double] = []
        for n in 0..<50 { stamps += filter.stamps(count: 1, arrival: 20 + Double(n) * 0.02) }
        // 30 samples arrive 1 ms apart (a network backend catching up).
        var arrivals: [Double] = []
        for n in 1...30 {
            let arrival = 20.98 + Double(n) * 0.001
            arrivals.append(arrival)
            stamps += filter.stamps(count: 1, arrival: arrival)
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(stamps.suffix(30), arrivals).allSatisfy { $0 <= $1 + 1e-5 }, "never (more than microseconds) after the arrival")
    }

    @Test("a hub stamping on its own clock (7.6 s behind the boot clock, 50 ppm fast): laid on the boot clock, spacing kept, after the first second never after arrival; a jump of its clock starts afresh")
    func deviceClock() {
        let (times, arrivals) = Self.arrivals(count: 2000, period: 0.02, start: 10.3)
        // The hub's clock: behind by 7.6 s and 50 ppm fast.
        let hub = times.map { ($0 - 7.6) * 1.00005 }
        var filter = ArrivalTimestamps(deviceClockPeriod: 0.02)
        var stamps: [Double] = []
        for (time, arrival) in zip(hub, arrivals) { stamps += filter.stamps(deviceTimes: [time], arrival: arrival) }
        #expect(stamps.count == 2000)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        // The first arrival is late by up to 40 ms: the line moves back from it gradually.
        #expect(zip(stamps, arrivals).allSatisfy { $0 <= $1 + 0.04 })
        #expect(zip(stamps[50...], arrivals[50...]).allSatisfy { $0 <= $1 + 1e-9 })
        let offsets = zip(stamps[500...], times[500...]).map { $0 - $1 }
        #expect(offsets.allSatisfy { abs($0) < 0.002 }, "on the boot clock within 2 ms: \(offsets.min()!)…\(offsets.max()!)")
        let spacing = Self.spacingSpread(stamps[500...])
        #expect(abs(spacing.mean - 0.02) < 1e-5 && spacing.deviation < 1e-4, "the hub's own spacing, not the arrivals' jitter: \(spacing)")

        // A batch of three scans stamped by the hub, arriving together.
        let batch = filter.stamps(deviceTimes: [hub[1999] + 0.02, hub[1999] + 0.04, hub[1999] + 0.06], arrival: arrivals[1999] + 0.061)
        #expect(batch.count == 3 && batch[0] > stamps.last! && abs(batch[2] - batch[1] - 0.02) < 1e-4)
        // The hub's clock jumps back (it restarted): afresh from the arrival.
        let after = filter.stamps(deviceTimes: [0.5], arrival: arrivals[1999] + 0.1)
        #expect(after.count == 1 && after[0] > batch[2] && after[0] <= arrivals[1999] + 0.1)
    }

    @Test("a hub's backlog read at once when reading starts (the first arrival 0.3 s late): its spacing shrinks by at most 10 % while the line moves back, then is its own")
    func deviceClockBacklog() {
        var filter = ArrivalTimestamps(deviceClockPeriod: 0.02)
        var stamps: [Double] = []
        // Samples taken every 20 ms from 100 s; the first 16 read at once at 100.3 s.
        for n in 0..<16 { stamps += filter.stamps(deviceTimes: [5 + Double(n) * 0.02], arrival: 100.3 + Double(n) * 0.00001) }
        for n in 16..<300 { stamps += filter.stamps(deviceTimes: [5 + Double(n) * 0.02], arrival: 100 + Double(n) * 0.02 + 0.001) }
        let gaps = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 0.018 - 1e-9 && $0 <= 0.02 + 1e-9 }, "\(gaps.min()!)…\(gaps.max()!)")
        #expect(abs(stamps.last! - (100 + 299 * 0.02)) < 0.001, "caught up: within a millisecond of the true time")
    }

    @Test("a pause of 2 s: the stamps start afresh from the arrival after it, still increasing; nothing for an empty refill")
    func gap() {
        var filter = ArrivalTimestamps(nominalPeriod: 0.02)
        var stamps: [Double] = []
        for n in 0..<100 { stamps += filter.stamps(count: 1, arrival: 10 + Double(n) * 0.02) }
        #expect(filter.stamps(count: 0, arrival: 11).isEmpty)
        for n in 0..<10 { stamps += filter.stamps(count: 1, arrival: 14 + Double(n) * 0.02) }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(stamps[100] - 14) < 1e-9, "the first after the pause is its arrival")
        #expect(filter.stamps(count: 1, arrival: .nan).isEmpty)
    }
}
