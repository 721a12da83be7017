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

    @Test("near above the level; near stays down to 0.9 levels (iio-sensor-proxy's margin below the level)")
    func margin() {
        // Level 128 (iio-sensor-proxy's test device): 256 near, 0 far, 129 near at once, 127
        // after it stays near however long it lasts, 115 is far.
        let levels = [256, 0, 129, 129, 127, 127, 127, 115].map { Double($0) / 128 }
        let changes = Self.changes(levels)
        #expect(changes.map(\.0) == [0, 1, 2, 7])
        #expect(changes.map(\.1) == [true, false, true, false])
        // Exactly at the level is not above it; from far, 0.95 stays far.
        #expect(Self.changes([1.0, 1.0, 1.0]).map(\.1) == [false])
        #expect(Self.changes([0.95, 0.95]).map(\.1) == [false])
        // A reading hovering between 0.9 and 1.1 levels once near never flaps.
        #expect(Self.changes([1.05, 0.95, 1.02, 0.91, 0.97, 0.93]).map(\.1) == [true])
        #expect(Self.changes([0.5, 1.01, 0.899]).map(\.0) == [0, 1, 2])
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
