import MotionCore
import MotionIIO
import Testing
@testable import MotionDaemon

/// When the pipeline switches to the rest rate and back, and when it gives the code pages back.
@Suite("RestRate")
struct RestRateTests {
    static func reading(_ kind: SensorKind = .accelerometer, at t: Double, moving: Bool = false) -> Sample {
        Sample(kind: kind, timestamp: t, vector: moving ? Vector3(0.5, 0, -1) : Vector3(0, 0, -1))
    }

    @Test("still for a second: rest begins once; the code pages go two rest readings later, once; the first moving reading ends the rest")
    func restAndMotion() {
        var rate = RestRate()
        var began: [Double] = []
        for i in 0...150 {
            let t = Double(i) / 100
            if rate.follow(Self.reading(at: t), reading: [.accelerometer]).restChanged { began.append(t) }
        }
        #expect(began.count == 1)
        #expect(began.first.map { $0 >= RestRate.after && $0 <= RestRate.after + 0.05 } == true)
        rate.scheduleCodeRelease(at: 1.5, wakeInterval: 0.35)
        #expect(rate.follow(Self.reading(at: 1.85), reading: [.accelerometer]) == .init())
        #expect(rate.follow(Self.reading(at: 2.2), reading: [.accelerometer]) == .init(releaseCodePages: true))
        #expect(rate.follow(Self.reading(at: 2.55), reading: [.accelerometer]) == .init(), "once per rest")
        #expect(rate.follow(Self.reading(at: 2.6, moving: true), reading: [.accelerometer]) == .init(restChanged: true))
        #expect(!rate.atRest)
    }

    @Test("the code pages go again after a subscriber leaves at rest, but not within 10 s of the last release: a client that comes and goes does not have them given back each time")
    func releaseSpacing() {
        var rate = RestRate()
        for i in 0...150 { _ = rate.follow(Self.reading(at: Double(i) / 100), reading: [.accelerometer]) }
        rate.scheduleCodeRelease(at: 1.5, wakeInterval: 0.35)
        #expect(rate.follow(Self.reading(at: 2.2), reading: [.accelerometer]).releaseCodePages)
        rate.scheduleCodeRelease(at: 3, wakeInterval: 0.35)
        var released: [Double] = []
        for i in 0...40 {
            let t = 3 + Double(i) * 0.35
            if rate.follow(Self.reading(at: t), reading: [.accelerometer]).releaseCodePages { released.append(t) }
        }
        #expect(released.count == 1 && released.first.map { $0 >= 12.2 && $0 < 12.2 + 0.35 } == true, "\(released)")
        rate.scheduleCodeRelease(at: 40, wakeInterval: 0.35)
        #expect(rate.follow(Self.reading(at: 40.7), reading: [.accelerometer]).releaseCodePages, "long after: two readings later")
    }

    @Test("a convertible's base accelerometer, while read, must lie still too; not read, it does not count")
    func base() {
        var rate = RestRate()
        for i in 0...150 {
            let t = Double(i) / 100
            _ = rate.follow(Self.reading(at: t), reading: [.accelerometer, .baseAccelerometer])
            _ = rate.follow(Self.reading(.baseAccelerometer, at: t, moving: i % 2 == 0), reading: [.accelerometer, .baseAccelerometer])
        }
        #expect(!rate.atRest)
        #expect(rate.follow(Self.reading(at: 1.51), reading: [.accelerometer]).restChanged)
        #expect(rate.atRest)
    }

    @Test("moving, no code release is scheduled; an accelerometer that stops starts the next stretch afresh")
    func stops() {
        var rate = RestRate()
        for i in 0...150 { _ = rate.follow(Self.reading(at: Double(i) / 100), reading: [.accelerometer]) }
        #expect(rate.atRest)
        rate.stopped(.accelerometer)
        #expect(!rate.atRest)
        rate.scheduleCodeRelease(at: 2, wakeInterval: 0.1)
        #expect(rate.follow(Self.reading(at: 2.5), reading: [.accelerometer]) == .init(), "a new stretch: not yet a second still")
        #expect(!rate.follow(Self.reading(at: 2.51), reading: [.accelerometer]).releaseCodePages)
    }

    @Test("the gyroscope, while read (a compass claim), must hold still too: a turn flat on a table, which the accelerometer does not see, ends the rest at its first reading; its constant bias is still")
    func gyroscope() {
        var rate = RestRate()
        let reading: Set<SensorKind> = [.accelerometer, .gyroscope, .magnetometer]
        let bias = Vector3(0.026, -0.003, 0.01)
        func gyro(at t: Double, turning: Bool = false) -> Sample {
            Sample(kind: .gyroscope, timestamp: t, vector: turning ? bias + Vector3(0, 0, 0.3) : bias)
        }
        var began: [Double] = []
        for i in 0...150 {
            let t = Double(i) / 100
            if rate.follow(Self.reading(at: t), reading: reading).restChanged { began.append(t) }
            if rate.follow(gyro(at: t + 0.005), reading: reading).restChanged { began.append(t + 0.005) }
        }
        #expect(began.count == 1 && rate.atRest, "\(began)")
        #expect(rate.follow(Self.reading(.magnetometer, at: 1.6, moving: true), reading: reading) == .init(), "the magnetometer does not decide")
        #expect(rate.follow(Self.reading(at: 1.85), reading: reading) == .init())
        #expect(rate.follow(gyro(at: 1.86, turning: true), reading: reading) == .init(restChanged: true))
        #expect(!rate.atRest)
        // Still again for a second, then the gyroscope is no longer read: the accelerometer alone decides.
        for i in 0...100 { _ = rate.follow(gyro(at: 1.9 + Double(i) / 100), reading: reading) }
        rate.stopped(.gyroscope)
        for i in 0...110 { _ = rate.follow(Self.reading(at: 1.9 + Double(i) / 100), reading: [.accelerometer]) }
        #expect(rate.atRest)
        #expect(rate.follow(Self.reading(at: 3.1), reading: reading).restChanged, "read again, the gyroscope has no still stretch yet: moving")
        #expect(!rate.atRest)
    }

    /// A rate at rest with the accelerometer, gyroscope and magnetometer read (a compass claim).
    static func resting() -> RestRate {
        var rate = RestRate()
        for i in 0...150 {
            let t = Double(i) / 100
            _ = rate.follow(reading(at: t), reading: [.accelerometer, .gyroscope, .magnetometer])
            _ = rate.follow(Sample(kind: .gyroscope, timestamp: t, vector: .zero), reading: [.accelerometer, .gyroscope, .magnetometer])
        }
        return rate
    }

    /// The kinds and timestamps of a burst's samples, `kind@t`.
    static func described(_ events: [SourceEvent]) -> [String] {
        events.map { event in
            switch event {
            case .sample(let sample): "\(sample.kind.rawValue)@\(sample.timestamp)"
            case .availability(let kind, _): "availability \(kind.rawValue)"
            }
        }
    }

    @Test("at rest, a batch's still scans are left out but each sensor's newest; a light reading and an availability are kept; moving, or not read at the rest rate, everything is kept")
    func stillBatch() {
        let kinds: [SensorKind] = [.accelerometer, .gyroscope, .magnetometer]
        var burst: [SourceEvent] = []
        for i in 0..<4 {
            let t = 2 + Double(i) / 10
            burst.append(.sample(Self.reading(at: t)))
            burst.append(.sample(Sample(kind: .gyroscope, timestamp: t, vector: Vector3(0.01, 0, -0.01))))
            burst.append(.sample(Sample(kind: .magnetometer, timestamp: t, vector: Vector3(20 + Double(i), 0, -40))))
            if i == 1 {
                burst.append(.sample(Sample(kind: .light, timestamp: t, vector: Vector3(120, 0, 0))))
                burst.append(.availability(.proximity, SensorAvailability(isAvailable: false, reason: "gone")))
            }
        }
        let rate = Self.resting()
        #expect(rate.atRest)
        #expect(Self.described(rate.worthHandling(burst, resting: kinds + [.light])) == [
            "light@2.1", "availability proximity", "accelerometer@2.3", "gyroscope@2.3", "magnetometer@2.3",
        ])
        #expect(Self.described(rate.worthHandling(burst, resting: [.accelerometer])).count == burst.count - 3,
                "only the sensors read at the rest rate are thinned")
        #expect(Self.described(RestRate().worthHandling(burst, resting: kinds)) == Self.described(burst), "moving: everything")
        #expect(Self.described(rate.worthHandling(Array(burst.prefix(3)), resting: kinds)) == Self.described(Array(burst.prefix(3))),
                "one scan of each: nothing to leave out")
    }

    @Test("at rest, a batch's first scan that leaves its still stretch is kept with everything after it, whichever sensor it is; a scan within the tolerance is still")
    func movingInBatch() {
        let rate = Self.resting()
        let kinds: Set<SensorKind> = [.accelerometer, .gyroscope, .magnetometer]
        func burst(moving: Sample) -> [SourceEvent] {
            var burst: [SourceEvent] = []
            for i in 0..<5 {
                let t = 2 + Double(i) / 10
                burst.append(i == 2 ? .sample(moving) : .sample(Self.reading(at: t)))
                burst.append(.sample(Sample(kind: .magnetometer, timestamp: t, vector: Vector3(20, 0, -40))))
            }
            return burst
        }
        #expect(Self.described(rate.worthHandling(burst(moving: Self.reading(at: 2.2, moving: true)), resting: kinds)) == [
            "accelerometer@2.2", "magnetometer@2.2", "accelerometer@2.3", "magnetometer@2.3", "accelerometer@2.4", "magnetometer@2.4",
        ])
        let turn = burst(moving: Sample(kind: .gyroscope, timestamp: 2.2, vector: Vector3(0, 0, 0.3)))
        #expect(Self.described(rate.worthHandling(turn, resting: kinds)).first == "gyroscope@2.2", "a turn only the gyroscope sees")
        let tilted = burst(moving: Sample(kind: .accelerometer, timestamp: 2.2, vector: Vector3(0.04, 0, -1)))
        #expect(Self.described(rate.worthHandling(tilted, resting: kinds)) == ["accelerometer@2.4", "magnetometer@2.4"],
                "0.04 G off is within the stretch")
        let broken = burst(moving: Sample(kind: .accelerometer, timestamp: 2.2, vector: Vector3(.nan, 0, -1)))
        #expect(Self.described(rate.worthHandling(broken, resting: kinds)).first == "accelerometer@2.2",
                "a non-finite scan is not still: the engine sees it")
    }
}
