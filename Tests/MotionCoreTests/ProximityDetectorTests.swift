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

    @Test("iio-sensor-proxy's margin, keyed on the previous reading: above 1.1 levels, or above 0.9 after a reading above the level")
    func margin() {
        // Level 128 (iio-sensor-proxy's test device): 256 near, 0 far, 129 near from its second
        // reading, then 127 near for one reading and far from the next.
        let levels = [256, 0, 129, 129, 127, 127].map { Double($0) / 128 }
        let changes = Self.changes(levels)
        #expect(changes.map(\.0) == [0, 1, 3, 5])
        #expect(changes.map(\.1) == [true, false, true, false])
        // A steady reading is near exactly when it is above the level; a jump over 1.1 levels
        // is near at once, and one under 0.9 far at once.
        #expect(Self.changes([1.05, 1.05, 1.05]).map(\.1) == [false, true])
        #expect(Self.changes([0.95, 0.95]).map(\.1) == [false])
        #expect(Self.changes([0.5, 1.12, 0.89]).map(\.0) == [0, 1, 2])
        #expect(Self.changes([1.0, 1.0, 1.0]).map(\.1) == [false])
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
