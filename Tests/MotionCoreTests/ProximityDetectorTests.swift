import MotionCore
import Testing

@Suite("ProximityDetector")
struct ProximityDetectorTests {
    static func reading(_ level: Double, at t: Double) -> Sample {
        Sample(kind: .proximity, timestamp: t, vector: Vector3(level, 0, 0))
    }

    /// Feeds `levels` one per 0.1 s; returns the changes as (index, near).
    static func changes(_ levels: [Double]) -> [(Int, Bool)] {
        var detector = ProximityDetector()
        return levels.enumerated().compactMap { i, level in
            detector.update(reading(level, at: Double(i) / 10)).map { (i, $0.near) }
        }
    }

    @Test("the first reading decides; later ones report only changes")
    func firstReading() {
        var detector = ProximityDetector()
        let first = detector.update(Self.reading(0.2, at: 1))
        #expect(first == Proximity(near: false, level: 0.2, timestamp: 1))
        #expect(detector.update(Self.reading(0.3, at: 1.1)) == nil)
        #expect(detector.update(Self.reading(2, at: 1.2)) == Proximity(near: true, level: 2, timestamp: 1.2))
        #expect(detector.state?.near == true)
    }

    @Test("±10 % hysteresis around the near level, keyed on the state: a steady reading just under the level stays near")
    func hysteresis() {
        let levels = [0.5, 1.05, 1.12, 0.95, 0.95, 0.95, 0.89, 1.0, 1.09, 1.2]
        let changes = Self.changes(levels)
        #expect(changes.map(\.0) == [0, 2, 6, 9])
        #expect(changes.map(\.1) == [false, true, false, true])
    }

    @Test("non-finite readings and other kinds change nothing; reset decides afresh")
    func badInput() {
        var detector = ProximityDetector()
        #expect(detector.update(Self.reading(.nan, at: 0)) == nil)
        #expect(detector.update(Sample(kind: .light, timestamp: 0, vector: Vector3(5, 0, 0))) == nil)
        #expect(detector.state == nil)
        #expect(detector.update(Self.reading(3, at: 1))?.near == true)
        #expect(detector.update(Self.reading(.infinity, at: 2)) == nil)
        detector.reset()
        #expect(detector.update(Self.reading(3, at: 3))?.near == true)
    }
}
