import Foundation
import Testing
import MotionCore

/// The shake detector: iOS semantics on synthetic shakes, the simulated IMU's scripted shake
/// through the real engine, and no events on a real slow recording.
@Suite("ShakeDetector")
struct ShakeDetectorTests {
    /// Feeds a shake along x of `amplitude` G at `frequency` Hz for `seconds`, then 1 s of rest, at
    /// 100 Hz; returns the events.
    static func shake(_ detector: inout ShakeDetector, amplitude: Double = 2, frequency: Double = 4, seconds: Double,
                      start: Double = 0) -> [ShakeDetector.Event] {
        var events: [ShakeDetector.Event] = []
        for i in 0..<Int((seconds + 1) * 100) {
            let t = Double(i) * 0.01
            let x = t < seconds ? amplitude * sin(2 * .pi * frequency * t) : 0
            if let event = detector.update(userAcceleration: Vector3(x, 0.05, 0), at: start + t) { events.append(event) }
        }
        return events
    }

    @Test("a shake: began at the first reversal, ended once it is over")
    func shakeEnds() throws {
        var detector = ShakeDetector()
        let events = Self.shake(&detector, seconds: 1.5)
        #expect(events.map(\.phase) == [.began, .ended])
        // The first reversal comes half a period (125 ms) after the first excursion.
        #expect(try #require(events.first).timestamp < 0.2)
        #expect(try #require(events.last).timestamp > 1.5 && events.last!.timestamp < 1.9)
        #expect(!detector.isShaking)
    }

    @Test("shaking too long is cancelled, and nothing more until the device is quiet")
    func tooLong() {
        var detector = ShakeDetector()
        let events = Self.shake(&detector, seconds: 6)
        #expect(events.map(\.phase) == [.began, .cancelled])
        #expect(Self.shake(&detector, seconds: 1, start: 10).map(\.phase) == [.began, .ended])
    }

    @Test("a single jolt never begins; one reversal alone begins and is cancelled")
    func tooShort() {
        var detector = ShakeDetector()
        #expect(Self.shake(&detector, seconds: 0.125).isEmpty) // one half-period: one excursion
        #expect(Self.shake(&detector, seconds: 0.25, start: 5).map(\.phase) == [.began, .cancelled])
    }

    @Test("a lost sensor cancels a shake in progress")
    func sensorLost() {
        var detector = ShakeDetector()
        var events: [ShakeDetector.Event] = []
        for i in 0..<40 {
            let t = Double(i) * 0.01
            if let e = detector.update(userAcceleration: Vector3(2 * sin(2 * .pi * 4 * t), 0, 0), at: t) { events.append(e) }
        }
        #expect(events.map(\.phase) == [.began])
        #expect(detector.cancel(at: 0.4)?.phase == .cancelled)
        #expect(detector.cancel(at: 0.5) == nil)
    }

    @Test("the simulated IMU's scripted shake, through the motion engine, is detected once")
    func scriptedShake() throws {
        var imu = SimulatedIMU()
        var engine = MotionEngine()
        var detector = ShakeDetector()
        var events: [(String, ShakeDetector.Phase)] = []
        let script = MotionScript.standard
        for i in 0..<Int(script.duration * 100) {
            let t = Double(i) * 0.01
            for kind in SensorKind.allCases { engine.update(imu.sample(kind, at: t, timestamp: t)) }
            guard let motion = try? engine.deviceMotion(in: .xArbitraryZVertical),
                  let event = detector.update(userAcceleration: motion.userAcceleration.vector, at: t) else { continue }
            events.append((script.state(at: t).step, event.phase))
        }
        #expect(events.map(\.1) == [.began, .ended], "\(events)")
        #expect(events.first?.0 == "shake")
    }

    static let slow = "dec3_95.2hz/05_undisturbed_slow_rotation_with_breaks_B.csv"

    @Test("no shake events on a real slow recording with rests (BROAD 05)", .enabled(if: BroadDataset.exists(slow), BroadDataset.missing))
    func noFalseShakes() async throws {
        let trace = try BroadDataset.trace(Self.slow)
        var engine = MotionEngine()
        var detector = ShakeDetector()
        var events: [ShakeDetector.Event] = []
        await BroadDataset.replay(trace) { record in
            if let g = record.gyroscope { engine.update(Sample(kind: .gyroscope, timestamp: record.time, vector: g)) }
            if let a = record.accelerometer { engine.update(Sample(kind: .accelerometer, timestamp: record.time, vector: a)) }
            guard let motion = try? engine.deviceMotion(in: .xArbitraryZVertical),
                  let event = detector.update(userAcceleration: motion.userAcceleration.vector, at: record.time) else { return }
            events.append(event)
        }
        #expect(events.isEmpty, "\(events)")
    }

    static let all = ["full_285.7hz/07_undisturbed_fast_rotation_B.csv", "dec3_95.2hz/05_undisturbed_slow_rotation_with_breaks_B.csv",
                      "dec3_95.2hz/07_undisturbed_fast_rotation_B.csv", "dec3_95.2hz/16_undisturbed_fast_translation_B.csv",
                      "dec3_95.2hz/24_disturbed_tapping_A.csv", "dec3_95.2hz/30_disturbed_stationary_magnet_C.csv"]

    @Test("no shake begins during the rest parts of any shared BROAD recording",
          .enabled(if: all.allSatisfy(BroadDataset.exists), BroadDataset.missing))
    func restParts() async throws {
        for file in Self.all {
            let trace = try BroadDataset.trace(file)
            var engine = MotionEngine()
            var detector = ShakeDetector()
            var atRest: [Double] = []
            await BroadDataset.replay(trace) { record in
                if let g = record.gyroscope { engine.update(Sample(kind: .gyroscope, timestamp: record.time, vector: g)) }
                if let a = record.accelerometer { engine.update(Sample(kind: .accelerometer, timestamp: record.time, vector: a)) }
                guard let motion = try? engine.deviceMotion(in: .xArbitraryZVertical),
                      let event = detector.update(userAcceleration: motion.userAcceleration.vector, at: record.time),
                      event.phase == .began, record.movement == false else { return }
                atRest.append(record.time)
            }
            #expect(atRest.isEmpty, "\(file): shakes began at rest at \(atRest)")
        }
    }
}

