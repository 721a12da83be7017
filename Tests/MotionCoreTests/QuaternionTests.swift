import Foundation
import Testing
import MotionCore

@Suite("Quaternion")
struct QuaternionTests {
    /// √½ = cos 45° = sin 45°
    let h = 0.5.squareRoot()

    @Test("90° about z rotates +x onto +y")
    func rotateXAboutZ() {
        // Rz(90°) = (cos 45°, 0, 0, sin 45°)
        let q = Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2)
        #expect(isSameRotation(q, Quaternion(w: h, x: 0, y: 0, z: h)))
        #expect(isClose(q.rotate(Vector3(1, 0, 0)), Vector3(0, 1, 0)))
        #expect(isClose(q.rotate(Vector3(0, 1, 0)), Vector3(-1, 0, 0)))
        #expect(isClose(q.rotate(Vector3(0, 0, 1)), Vector3(0, 0, 1)))
    }

    @Test("right-hand rule about x and y")
    func rightHandRuleOtherAxes() {
        // About +x by 90°: y → z, z → −y.
        let rx = Quaternion(axis: Vector3(1, 0, 0), angle: .pi / 2)
        #expect(isClose(rx.rotate(Vector3(0, 1, 0)), Vector3(0, 0, 1)))
        #expect(isClose(rx.rotate(Vector3(0, 0, 1)), Vector3(0, -1, 0)))
        // About +y by 90°: z → x, x → −z.
        let ry = Quaternion(axis: Vector3(0, 1, 0), angle: .pi / 2)
        #expect(isClose(ry.rotate(Vector3(0, 0, 1)), Vector3(1, 0, 0)))
        #expect(isClose(ry.rotate(Vector3(1, 0, 0)), Vector3(0, 0, -1)))
    }

    @Test("axis need not be unit length; zero axis gives identity")
    func axisNormalization() {
        let q = Quaternion(axis: Vector3(0, 0, 2), angle: .pi / 2)
        #expect(isClose(q.w, h) && isClose(q.x, 0) && isClose(q.y, 0) && isClose(q.z, h))
        #expect(isClose(q.norm, 1))
        #expect(Quaternion(axis: .zero, angle: 1) == .identity)
        #expect(Quaternion.identity.rotate(Vector3(1, 2, 3)) == Vector3(1, 2, 3))
    }

    @Test("Hamilton product of Rx(90°) and Rz(90°)")
    func hamiltonProduct() {
        let a = Quaternion(w: h, x: h, y: 0, z: 0)   // Rx(90°)
        let b = Quaternion(w: h, x: 0, y: 0, z: h)   // Rz(90°)
        // w = ½ − 0 − 0 − 0 = ½
        // x = aw·bx + ax·bw + ay·bz − az·by = 0 + ½ + 0 − 0 = ½
        // y = aw·by − ax·bz + ay·bw + az·bx = 0 − ½ + 0 + 0 = −½
        // z = aw·bz + ax·by − ay·bx + az·bw = ½ + 0 − 0 + 0 = ½
        let ab = a * b
        #expect(isClose(ab.w, 0.5) && isClose(ab.x, 0.5) && isClose(ab.y, -0.5) && isClose(ab.z, 0.5))
        // b first maps +x → +y, then a maps +y → +z.
        #expect(isClose(ab.rotate(Vector3(1, 0, 0)), Vector3(0, 0, 1)))
    }

    @Test("(a * b).rotate(v) == a.rotate(b.rotate(v))")
    func compositionOrder() {
        let quaternions = [
            Quaternion(axis: Vector3(1, 2, 3), angle: 0.7),
            Quaternion(axis: Vector3(-1, 0.5, 2), angle: 2.9),
            Quaternion(axis: Vector3(0, 1, 0), angle: -1.3),
            Quaternion(axis: Vector3(3, -1, -1), angle: 4.0),
        ]
        let vectors = [Vector3(1, 0, 0), Vector3(0.3, -2, 5), Vector3(-1, -1, 0.25)]
        for a in quaternions {
            for b in quaternions {
                for v in vectors {
                    #expect(isClose((a * b).rotate(v), a.rotate(b.rotate(v)), tolerance: 1e-12))
                }
            }
        }
    }

    @Test("inverse undoes the rotation")
    func inverseUndoes() {
        let q = Quaternion(axis: Vector3(1, -2, 0.5), angle: 1.1)
        let v = Vector3(0.3, -2, 5)
        #expect(isClose(q.inverse.rotate(q.rotate(v)), v))
        #expect(isClose(q.rotate(q.inverse.rotate(v)), v))
        #expect(isSameRotation(q * q.inverse, .identity))
        // Inverse of Rz(90°) is Rz(−90°): +x → −y.
        let rz = Quaternion(w: h, x: 0, y: 0, z: h)
        #expect(isClose(rz.inverse.rotate(Vector3(1, 0, 0)), Vector3(0, -1, 0)))
        // Rotations preserve length: |(0.3, −2, 5)|² = 0.09 + 4 + 25 = 29.09
        #expect(isClose(q.rotate(v).norm, 29.09.squareRoot()))
    }

    @Test("normalized divides by the norm")
    func normalized() {
        // |(2, 0, 0, 2)| = √8 = 2√2 → (1/√2, 0, 0, 1/√2)
        let q = Quaternion(w: 2, x: 0, y: 0, z: 2).normalized
        #expect(isClose(q.w, h) && isClose(q.z, h) && q.x == 0 && q.y == 0)
        #expect(isClose(Quaternion(w: 2, x: 0, y: 0, z: 2).norm, 8.0.squareRoot()))
    }

    @Test("slerp midpoint of identity → Rz(90°) is Rz(45°)")
    func slerpMidpoint() {
        let target = Quaternion(w: h, x: 0, y: 0, z: h)
        let mid = Quaternion.identity.slerp(to: target, t: 0.5)
        // Rz(45°) = (cos 22.5°, 0, 0, sin 22.5°) = (0.92387953251128674, 0, 0, 0.38268343236508977)
        #expect(isSameRotation(mid, Quaternion(w: 0.92387953251128674, x: 0, y: 0, z: 0.38268343236508977)))
        // +x rotated by 45° about z: (cos 45°, sin 45°, 0)
        #expect(isClose(mid.rotate(Vector3(1, 0, 0)), Vector3(h, h, 0)))
        #expect(isSameRotation(Quaternion.identity.slerp(to: target, t: 0), .identity))
        #expect(isSameRotation(Quaternion.identity.slerp(to: target, t: 1), target))
        // Quarter way: Rz(22.5°) = (cos 11.25°, 0, 0, sin 11.25°)
        let quarter = Quaternion.identity.slerp(to: target, t: 0.25)
        #expect(isSameRotation(quarter, Quaternion(w: 0.98078528040323043, x: 0, y: 0, z: 0.19509032201612825)))
    }

    @Test("slerp takes the shortest arc even when the target has negative w")
    func slerpShortestArc() {
        // −Rz(90°) is the same rotation as Rz(90°); the midpoint is still Rz(45°).
        let negated = Quaternion(w: -h, x: 0, y: 0, z: -h)
        let mid = Quaternion.identity.slerp(to: negated, t: 0.5)
        #expect(isClose(mid.rotate(Vector3(1, 0, 0)), Vector3(h, h, 0)))
    }

    @Test("axisAngle round trip")
    func axisAngleRoundTrip() {
        // Axis (1, 2, 2) has length 3 → unit axis (1/3, 2/3, 2/3).
        let q = Quaternion(axis: Vector3(1, 2, 2), angle: 1.2)
        let (axis, angle) = q.axisAngle
        #expect(isClose(axis, Vector3(1.0 / 3, 2.0 / 3, 2.0 / 3)))
        #expect(isClose(angle, 1.2))
        #expect(isSameRotation(Quaternion(axis: axis, angle: angle), q))
    }

    @Test("axisAngle keeps the angle in [0, π]")
    func axisAngleRange() {
        // −0.5 rad about +z is 0.5 rad about −z.
        let a = Quaternion(axis: Vector3(0, 0, 1), angle: -0.5).axisAngle
        #expect(isClose(a.axis, Vector3(0, 0, -1)))
        #expect(isClose(a.angle, 0.5))
        // 3π/2 about +z is π/2 about −z.
        let b = Quaternion(axis: Vector3(0, 0, 1), angle: 3 * .pi / 2).axisAngle
        #expect(isClose(b.axis, Vector3(0, 0, -1)))
        #expect(isClose(b.angle, .pi / 2))
        // π about +x: w = cos(π/2) ≈ 0, angle π.
        let c = Quaternion(axis: Vector3(1, 0, 0), angle: .pi).axisAngle
        #expect(isClose(c.axis, Vector3(1, 0, 0)))
        #expect(isClose(c.angle, .pi))
        // Identity: +x axis, angle 0.
        let d = Quaternion.identity.axisAngle
        #expect(d.axis == Vector3(1, 0, 0))
        #expect(d.angle == 0)
    }
}
