import Foundation
import Testing
import MotionCore

/// All detectors together behind the engine, as the daemon and `motionctl analyze` run them.
@Suite("MotionEventDetectors")
struct MotionEventDetectorsTests {
    @Test("the simulated IMU's script: every orientation in order, one shake, face up/down gestures, rest")
    func scriptedDemo() {
        var imu = SimulatedIMU()
        var engine = MotionEngine()
        var detectors = MotionEventDetectors()
        var events: [MotionEvent] = []
        for i in 0..<Int(MotionScript.standard.duration * 100) {
            let t = Double(i) * 0.01
            for kind in SensorKind.allCases {
                let sample = imu.sample(kind, at: t, timestamp: t)
                engine.update(sample)
                events += detectors.update(sample, engine: engine)
            }
        }
        let orientations = events.compactMap { if case .orientation(let o, _) = $0 { return o } else { return nil } }
        #expect(orientations == [.faceUp, .portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight, .portrait, .faceUp, .faceDown])
        let shakes = events.compactMap { if case .shake(let p, _) = $0 { return p } else { return nil } }
        #expect(shakes == [.began, .ended])
        let gestures = events.compactMap { if case .gesture(let g, _) = $0 { return g } else { return nil } }
        #expect(gestures.filter { $0 == .faceUp || $0 == .faceDown } == [.faceUp, .faceUp, .faceDown])
        #expect(gestures.contains(.rest) && gestures.contains(.motion))
        #expect(gestures.allSatisfy { ![.slapLeft, .slapRight, .tap, .doubleTap].contains($0) }, "\(gestures)")
        // The tilt follows the same gravity, reported on change only: flat, upright through the
        // four quarters, flat, and face down (with tilted stretches on the way between).
        let tilts = events.compactMap { if case .tilt(let tilt, _) = $0 { return tilt } else { return nil } }
        #expect(tilts.first == .faceUp && tilts.contains(.faceDown), "\(tilts)")
        #expect(zip(tilts, tilts.dropFirst()).allSatisfy { $0 != $1 }, "changes only: \(tilts)")
        #expect(tilts.contains(.vertical) && tilts.contains(.tiltedUp), "\(tilts)")
    }
}
