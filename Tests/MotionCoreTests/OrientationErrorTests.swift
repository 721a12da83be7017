import Foundation
import Testing
import MotionCore

/// The BROAD error metric on cases worked out by hand.
@Suite("OrientationError (BROAD metric)")
struct OrientationErrorTests {
    static let deg = Double.pi / 180
    let reference = Quaternion(axis: Vector3(1, 2, 3), angle: 0.7)

    func turn(_ axis: Vector3, _ degrees: Double) -> Quaternion { Quaternion(axis: axis, angle: degrees * Self.deg) }

    @Test("no error, and the sign of a quaternion does not matter")
    func zero() {
        let e = OrientationError.errorQuaternion(estimate: reference, reference: reference)
        let c = OrientationError.components(of: e)
        #expect(c.total < 1e-6 && c.heading < 1e-6 && c.inclination < 1e-6)
        let negated = Quaternion(w: -reference.w, x: -reference.x, y: -reference.y, z: -reference.z)
        #expect(OrientationError.components(of: OrientationError.errorQuaternion(estimate: negated, reference: reference)).total < 1e-6)
    }

    @Test("an error about earth Z is all heading; about earth X all inclination")
    func pureComponents() {
        // estimate = Rz(10°) ⊗ reference → e = Rz(10°): total 10°, heading 2·atan(tan 5°) = 10°, inclination 0.
        let heading = OrientationError.components(of: OrientationError.errorQuaternion(estimate: turn(Vector3(0, 0, 1), 10) * reference, reference: reference))
        #expect(abs(heading.total - 10) < 1e-9 && abs(heading.heading - 10) < 1e-9 && heading.inclination < 1e-6)
        // estimate = Rx(5°) ⊗ reference → e = Rx(5°): total 5°, heading 0, inclination 2·acos(cos 2.5°) = 5°.
        let tilt = OrientationError.components(of: OrientationError.errorQuaternion(estimate: turn(Vector3(1, 0, 0), 5) * reference, reference: reference))
        #expect(abs(tilt.total - 5) < 1e-9 && tilt.heading < 1e-9 && abs(tilt.inclination - 5) < 1e-6)
    }

    @Test("RMSE over evaluated rows with a reference only")
    func rmse() {
        // Rows: 3° and 4° heading errors evaluated; a 50° row not evaluated; a row without reference.
        let estimates = [turn(Vector3(0, 0, 1), 3) * reference, turn(Vector3(0, 0, 1), 4) * reference,
                         turn(Vector3(0, 0, 1), 50) * reference, reference]
        let summary = OrientationError.summarize(estimates: estimates, references: [reference, reference, reference, nil],
                                                 evaluate: [true, true, false, true], removeHeadingOffset: false)
        #expect(summary.rows == 2)
        // √((3² + 4²) / 2) = √12.5 = 3.5355…
        #expect(abs(summary.rmse.heading - 12.5.squareRoot()) < 1e-9)
        #expect(abs(summary.rmse.total - 12.5.squareRoot()) < 1e-9)
        #expect(summary.rmse.inclination < 1e-6)
    }

    @Test("6D: a constant heading offset is removed, drift and inclination remain")
    func headingOffset() {
        // Heading errors 30° ± 2° (mean 30°) plus a 4° tilt on one row.
        let estimates = [turn(Vector3(0, 0, 1), 28) * reference,
                         turn(Vector3(0, 0, 1), 32) * reference,
                         turn(Vector3(0, 0, 1), 30) * turn(Vector3(1, 0, 0), 4) * reference]
        let summary = OrientationError.summarize(estimates: estimates, references: [reference, reference, reference],
                                                 evaluate: [true, true, true], removeHeadingOffset: true)
        // Remaining heading errors −2°, +2°, 0 → RMSE √(8/3) = 1.633°; inclination 0, 0, 4° → √(16/3) = 2.309°.
        #expect(abs(summary.rmse.heading - (8.0 / 3).squareRoot()) < 1e-6)
        #expect(abs(summary.rmse.inclination - (16.0 / 3).squareRoot()) < 1e-6)
    }

    @Test("north-west-up to east-north-up: north becomes +y, west −x, up stays")
    func frames() {
        let q = OrientationError.eastNorthUp(fromNorthWestUp: .identity)
        #expect((q.rotate(Vector3(1, 0, 0)) - Vector3(0, 1, 0)).norm < 1e-12)
        #expect((q.rotate(Vector3(0, 1, 0)) - Vector3(-1, 0, 0)).norm < 1e-12)
        #expect((q.rotate(Vector3(0, 0, 1)) - Vector3(0, 0, 1)).norm < 1e-12)
    }

    @Test("the trace reader keeps the reference orientation and movement flag when present")
    func traceGroundTruth() throws {
        let trace = try TraceReader.parse("""
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,opt_qw,opt_qx,opt_qy,opt_qz,movement
            0.0,0,0,0,0,0,9.80665,nan,nan,nan,nan,0
            0.01,0,0,0,0,0,9.80665,0.7071068,0,0,0.7071068,1
            """)
        #expect(trace.records[0].reference == nil && trace.records[0].movement == false)
        #expect(trace.records[1].reference == Quaternion(w: 0.7071068, x: 0, y: 0, z: 0.7071068))
        #expect(trace.records[1].movement == true)
    }
}
