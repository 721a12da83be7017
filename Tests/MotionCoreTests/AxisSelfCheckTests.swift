import Foundation
import Testing
import MotionCore

/// The axis self-check on synthetic motion with known truth: a gyroscope whose axes are
/// flipped or swapped relative to the accelerometer is caught and the right correction named.
@Suite("AxisSelfCheck")
struct AxisSelfCheckTests {
    /// Feeds `seconds` of tumbling motion at 100 Hz in which the gyroscope reports `gyroscopeAxes · ω`.
    static func run(_ check: inout AxisSelfCheck, gyroscopeAxes: Matrix3, seconds: Double = 60, flatSpin: Bool = false) {
        var random = SeededRandom(seed: 7)
        for step in TumblingMotion(seconds: seconds, flatSpin: flatSpin).steps {
            check.update(gyroscope: gyroscopeAxes * step.rate + random.gaussianVector(sigma: 0.003), at: step.time)
            check.update(accelerometer: step.gravity + random.gaussianVector(sigma: 0.01), at: step.time)
        }
    }

    @Test("agreeing axes are reported consistent")
    func consistent() {
        var check = AxisSelfCheck()
        Self.run(&check, gyroscopeAxes: .identity)
        #expect(check.verdict == .consistent, "\(check.verdict)")
    }

    @Test("a flipped or swapped gyroscope axis is found, with the correction that undoes it",
          arguments: [
            Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)),  // x inverted (handedness differs)
            Matrix3(rows: Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, -1)),  // x/y swapped, z inverted
            Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, -1)), // y and z inverted
          ])
    func inconsistent(axes: Matrix3) {
        var check = AxisSelfCheck()
        Self.run(&check, gyroscopeAxes: axes)
        // The gyroscope reports S·ω, so the correction is S⁻¹ = Sᵀ for a signed permutation.
        #expect(check.verdict == .inconsistent(correction: axes.transposed), "\(check.verdict)")
        #expect("\(check.verdict)".contains("mount matrix"))
    }

    @Test("turning only about the vertical says nothing about the other axes: undetermined")
    func flatSpinIsUndetermined() {
        var check = AxisSelfCheck()
        Self.run(&check, gyroscopeAxes: .identity, flatSpin: true)
        #expect(check.verdict == .undetermined)
    }

    @Test("a gyroscope that does not explain the turning (a scale off by 2) is implausible, not 'consistent'")
    func implausible() {
        var check = AxisSelfCheck()
        Self.run(&check, gyroscopeAxes: Matrix3(rows: Vector3(0.5, 0, 0), Vector3(0, 0.5, 0), Vector3(0, 0, 0.5)))
        guard case .implausible = check.verdict else {
            Issue.record("expected implausible, got \(check.verdict)")
            return
        }
    }

    @Test("linear acceleration windows are skipped rather than misread")
    func linearAccelerationIgnored() {
        var check = AxisSelfCheck()
        // Strong shaking only (|a| far from 1 G), no turning: no window counts.
        for i in 0..<3000 {
            let t = Double(i) * 0.01
            check.update(gyroscope: Vector3(0.3 * sin(3 * t), 0, 0), at: t)
            check.update(accelerometer: Vector3(0, 0.5 * sin(20 * t), -1 + 0.4 * cos(20 * t)), at: t)
        }
        #expect(check.windows == 0)
        #expect(check.verdict == .undetermined)
    }

    static let tapping = "dec3_95.2hz/24_disturbed_tapping_A.csv"

    @Test("on a real recording (BROAD 24) the axes are consistent, and a y/z swap is caught with its correction",
          .enabled(if: BroadDataset.exists(tapping), BroadDataset.missing))
    func realRecording() async throws {
        let trace = try BroadDataset.trace(Self.tapping)
        let swap = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 0, 1), Vector3(0, 1, 0))
        for axes in [Matrix3.identity, swap] {
            var check = AxisSelfCheck()
            await BroadDataset.replay(trace) { record in
                if let g = record.gyroscope { check.update(gyroscope: axes * g, at: record.time) }
                if let a = record.accelerometer { check.update(accelerometer: a, at: record.time) }
            }
            #expect(check.verdict == (axes == .identity ? .consistent : .inconsistent(correction: swap)), "\(check.verdict)")
        }
    }
}
