import Foundation
import Testing
import MotionCore

/// The slap detector: direction from the first peak (not the rebound), at any rate; shakes and
/// gentle motion are not slaps.
@Suite("SlapDetector")
struct SlapDetectorTests {
    /// A slap: a 2 G half-sine push of 80 ms toward `sign`, then a 1.3 G rebound the other way,
    /// on top of gravity along −y (portrait), sampled at `rate` Hz; returns the reports.
    static func slap(sign: Double, rate: Double, start: Double = 0, detector: inout SlapDetector) -> [SlapDetector.Direction] {
        var out: [SlapDetector.Direction] = []
        for i in 0..<Int(2 * rate) {
            let t = Double(i) / rate
            var x = 0.0
            if t >= 0.5 && t < 0.58 { x = sign * 2 * sin(.pi * (t - 0.5) / 0.08) }
            if t >= 0.58 && t < 0.7 { x = -sign * 1.3 * sin(.pi * (t - 0.58) / 0.12) }
            if let d = detector.update(x: x, at: start + t) { out.append(d) }
        }
        return out
    }

    @Test("a push to the left is a left slap, to the right a right slap, at 50, 100 and 200 Hz", arguments: [50.0, 100.0, 200.0])
    func directions(rate: Double) {
        var detector = SlapDetector()
        #expect(Self.slap(sign: -1, rate: rate, detector: &detector) == [.left])
        #expect(Self.slap(sign: 1, rate: rate, start: 10, detector: &detector) == [.right])
    }

    @Test("a shake (back and forth several times) and gentle motion are not slaps")
    func notSlaps() {
        var detector = SlapDetector()
        for i in 0..<300 {
            let t = Double(i) / 100
            #expect(detector.update(x: 2 * sin(2 * .pi * 4 * t), at: t) == nil)
        }
        for i in 300..<1300 {
            let t = Double(i) / 100
            #expect(detector.update(x: 0.5 * sin(2 * .pi * 1 * t), at: t) == nil)
        }
    }
}
