import Glibc

/// The device's orientation in a reference frame, like `CMAttitude`.
///
/// Stored as a unit quaternion that rotates device-frame vectors into the reference frame
/// (Z up; X per ``AttitudeReferenceFrame``): the identity means the device axes are the
/// reference axes, i.e. the device lies face up with its right edge (+x) along reference X and
/// its top (+y) along reference Y (west, in the north frames).
///
/// Euler angles follow Core Motion: the attitude is yaw about Z, then pitch about the rotated
/// x, then roll about the rotated y (`R = Rz(yaw) · Rx(pitch) · Ry(roll)`), counter-clockwise
/// positive; pitch ∈ [−π/2, π/2], roll and yaw ∈ (−π, π]. Held upright, pitch = π/2; lying on
/// its right edge, roll = π/2. At pitch = ±π/2 (gimbal lock) roll is reported as 0 and the
/// whole turn as yaw; use ``quaternion`` or ``rotationMatrix`` where that matters.
public struct Attitude: Sendable, Hashable, Codable {
    /// Rotates device-frame vectors into the reference frame (unit length).
    public private(set) var quaternion: Quaternion

    public init(quaternion: Quaternion) {
        self.quaternion = quaternion.normalized
    }

    /// The attitude with the given Core Motion Euler angles (radians).
    public init(roll: Double, pitch: Double, yaw: Double) {
        self.init(quaternion: Quaternion(axis: Vector3(0, 0, 1), angle: yaw)
            * Quaternion(axis: Vector3(1, 0, 0), angle: pitch)
            * Quaternion(axis: Vector3(0, 1, 0), angle: roll))
    }

    public static let identity = Attitude(quaternion: .identity)

    /// Core Motion's `rotationMatrix` (m11…m33 row-major): maps reference-frame vectors into
    /// device coordinates, so gravity in the device frame is `rotationMatrix · (0, 0, −1)`.
    /// It is the transpose of the device-to-reference rotation of ``quaternion``.
    public var rotationMatrix: Matrix3 { quaternion.matrix.transposed }

    /// Rotation about the device x axis, radians in [−π/2, π/2].
    public var pitch: Double {
        asin(max(-1, min(1, quaternion.matrix[2, 1])))
    }

    /// Rotation about the device y axis, radians in (−π, π]; 0 at gimbal lock.
    public var roll: Double {
        let r = quaternion.matrix
        guard !Self.isGimbalLocked(r) else { return 0 }
        return Self.halfOpen(atan2(-r[2, 0], r[2, 2]))
    }

    /// Rotation about the reference Z axis, radians in (−π, π]; 0 when the device's +x points
    /// along reference X (in the north frames: +x north, top edge west).
    public var yaw: Double {
        let r = quaternion.matrix
        if Self.isGimbalLocked(r) { return Self.halfOpen(atan2(r[1, 0], r[0, 0])) }
        return Self.halfOpen(atan2(-r[0, 1], r[1, 1]))
    }

    /// Gravity in the device frame, G: the reference "down" (0, 0, −1) seen from the device.
    public var gravity: Acceleration {
        Acceleration(rotationMatrix * Vector3(0, 0, -1))
    }

    /// Degrees clockwise from reference X (north, in the north frames) of the direction the
    /// device's top edge (+y) points, projected onto the horizontal; see ``heading(of:)``.
    public var heading: Double { heading(of: .portrait) }

    /// Degrees in [0, 360) clockwise from reference X (north, in the north frames) of the
    /// direction the edge that `orientation` calls "top" points, projected onto the horizontal
    /// (tilt-compensated: any tilt is allowed). When that edge is nearly vertical (within about
    /// 25°), the direction the device's back (−z) faces is used instead, as a compass held
    /// upright points where its camera looks.
    public func heading(of orientation: HeadingOrientation) -> Double {
        let r = quaternion.matrix
        var direction = r * orientation.topEdge
        if direction.x * direction.x + direction.y * direction.y < 0.18 {
            direction = r * Vector3(0, 0, -1)
        }
        // Reference Y points west: east is −Y.
        let degrees = atan2(-direction.y, direction.x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// Makes this attitude relative to `reference` (Core Motion's `multiply(byInverseOf:)`):
    /// afterwards it rotates this device frame into `reference`'s device frame, so an attitude
    /// made relative to itself is the identity.
    public mutating func multiply(byInverseOf reference: Attitude) {
        self = multiplied(byInverseOf: reference)
    }

    /// The attitude relative to `reference`; see ``multiply(byInverseOf:)``.
    public func multiplied(byInverseOf reference: Attitude) -> Attitude {
        Attitude(quaternion: reference.quaternion.inverse * quaternion)
    }

    private static func isGimbalLocked(_ r: Matrix3) -> Bool { abs(r[2, 1]) > 1 - 1e-12 }

    /// Maps −π to π, so angles lie in (−π, π].
    private static func halfOpen(_ angle: Double) -> Double { angle <= -.pi ? angle + 2 * .pi : angle }
}
