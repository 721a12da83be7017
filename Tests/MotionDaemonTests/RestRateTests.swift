import MotionCore
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
            if rate.follow(Self.reading(at: t), readingBase: false).restChanged { began.append(t) }
        }
        #expect(began.count == 1)
        #expect(began.first.map { $0 >= RestRate.after && $0 <= RestRate.after + 0.05 } == true)
        rate.scheduleCodeRelease(at: 1.5, wakeInterval: 0.35)
        #expect(rate.follow(Self.reading(at: 1.85), readingBase: false) == .init())
        #expect(rate.follow(Self.reading(at: 2.2), readingBase: false) == .init(releaseCodePages: true))
        #expect(rate.follow(Self.reading(at: 2.55), readingBase: false) == .init(), "once per rest")
        #expect(rate.follow(Self.reading(at: 2.6, moving: true), readingBase: false) == .init(restChanged: true))
        #expect(!rate.atRest)
    }

    @Test("a convertible's base accelerometer, while read, must lie still too; not read, it does not count")
    func base() {
        var rate = RestRate()
        for i in 0...150 {
            let t = Double(i) / 100
            _ = rate.follow(Self.reading(at: t), readingBase: true)
            _ = rate.follow(Self.reading(.baseAccelerometer, at: t, moving: i % 2 == 0), readingBase: true)
        }
        #expect(!rate.atRest)
        #expect(rate.follow(Self.reading(at: 1.51), readingBase: false).restChanged)
        #expect(rate.atRest)
    }

    @Test("moving, no code release is scheduled; an accelerometer that stops starts the next stretch afresh")
    func stops() {
        var rate = RestRate()
        for i in 0...150 { _ = rate.follow(Self.reading(at: Double(i) / 100), readingBase: false) }
        #expect(rate.atRest)
        rate.accelerometerStopped()
        #expect(!rate.atRest)
        rate.scheduleCodeRelease(at: 2, wakeInterval: 0.1)
        #expect(rate.follow(Self.reading(at: 2.5), readingBase: false) == .init(), "a new stretch: not yet a second still")
        #expect(!rate.follow(Self.reading(at: 2.51), readingBase: false).releaseCodePages)
    }
}
