import Glibc

/// A unit quaternion (w, x, y, z) describing a rotation.
///
/// Convention (as Core Motion's attitude): `q.rotate(v)` maps a vector given in the device
/// frame into the reference frame; `q.inverse.rotate(v)` maps reference into device.
public struct Quaternion: Sendable, Hashable, Codable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Rotation by `angle` radians about `axis` (right-hand rule); the axis need not be unit length.
    public init(axis: Vector3, angle: Double) {
        let n = axis.norm
        guard n > 0 else {
            self = .identity
            return
        }
        let s = sin(angle / 2) / n
        self.init(w: cos(angle / 2), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    public var vector: Vector3 { Vector3(x, y, z) }
    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }
    public var normalized: Quaternion {
        let n = norm
        return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// The conjugate, which is the inverse of a unit quaternion.
    public var inverse: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// Hamilton product: `(a * b).rotate(v) == a.rotate(b.rotate(v))`.
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// This attitude (device → reference) with its reference frame's horizontal axes turned:
    /// the rotation by `angle` radians about the reference Z (up) applied after it. A heading
    /// puts north in place of the 6D frame's X; minus a yaw moves X to where the device pointed.
    public func turnedAboutVertical(by angle: Double) -> Quaternion {
        (Quaternion(axis: Vector3(0, 0, 1), angle: angle) * self).normalized
    }

    /// Rotates `v` by this (unit) quaternion.
    public func rotate(_ v: Vector3) -> Vector3 {
        let u = vector
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// The rotation as (unit axis, angle in [0, π]); the axis is +x for the identity.
    public var axisAngle: (axis: Vector3, angle: Double) {
        var q = normalized
        if q.w < 0 { q = Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z) }
        let s = q.vector.norm
        guard s > 1e-12 else { return (Vector3(1, 0, 0), 0) }
        return (q.vector / s, 2 * atan2(s, q.w))
    }

    /// The rotation as a matrix: `matrix * v == rotate(v)`, for this (unit) quaternion.
    public var matrix: Matrix3 {
        Matrix3(rows:
            Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// Spherical linear interpolation along the shortest arc, `t` in [0, 1].
    public func slerp(to other: Quaternion, t: Double) -> Quaternion {
        let delta = inverse * other
        let (axis, angle) = delta.axisAngle
        return (self * Quaternion(axis: axis, angle: angle * t)).normalized
    }
}
