import Foundation
import Testing
import MotionCore

/// Core Motion conventions pinned on canonical poses. Reference frame: X north, Y west, Z up.
/// Expected values are worked out by hand from the pose descriptions, not from the code.
@Suite("Attitude and device-motion conventions")
struct AttitudeTests {
    static let deg = Double.pi / 180

    func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) < tolerance }
    func close(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-9) -> Bool { (a - b).norm < tolerance }

    /// A pose given by where the device's axes point in the reference frame (columns of the
    /// device-to-reference rotation), turned into an attitude without the Euler code.
    static func pose(x: Vector3, y: Vector3, z: Vector3) -> Attitude {
        // Shepperd's method on the matrix with columns x, y, z.
        let (m00, m11, m22) = (x.x, y.y, z.z)
        let trace = m00 + m11 + m22
        let q: Quaternion
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = Quaternion(w: s / 4, x: (y.z - z.y) / s, y: (z.x - x.z) / s, z: (x.y - y.x) / s)
        } else if m00 > m11 && m00 > m22 {
            let s = (1 + m00 - m11 - m22).squareRoot() * 2
            q = Quaternion(w: (y.z - z.y) / s, x: s / 4, y: (y.x + x.y) / s, z: (z.x + x.z) / s)
        } else if m11 > m22 {
            let s = (1 + m11 - m00 - m22).squareRoot() * 2
            q = Quaternion(w: (z.x - x.z) / s, x: (y.x + x.y) / s, y: s / 4, z: (z.y + y.z) / s)
        } else {
            let s = (1 + m22 - m00 - m11).squareRoot() * 2
            q = Quaternion(w: (x.y - y.x) / s, x: (z.x + x.z) / s, y: (z.y + y.z) / s, z: s / 4)
        }
        return Attitude(quaternion: q)
    }

    static let north = Vector3(1, 0, 0), south = Vector3(-1, 0, 0)
    static let west = Vector3(0, 1, 0), east = Vector3(0, -1, 0)
    static let up = Vector3(0, 0, 1), down = Vector3(0, 0, -1)

    @Test("face up, right edge north: identity, gravity (0,0,−1), all angles 0, top points west (270°)")
    func faceUp() {
        let a = Self.pose(x: Self.north, y: Self.west, z: Self.up)
        #expect(close(a.quaternion.w, 1))
        #expect(close(a.gravity.vector, Vector3(0, 0, -1)))
        #expect(close(a.roll, 0) && close(a.pitch, 0) && close(a.yaw, 0))
        #expect(close(a.heading, 270))
        // The heading of a flat device's top = (270° − yaw°) mod 360.
        #expect(close(a.heading, (270 - a.yaw / Self.deg).truncatingRemainder(dividingBy: 360)))
    }

    @Test("flat, top to north: yaw −90°, heading 0°; top to east: yaw 180°, heading 90°")
    func flatHeadings() {
        // Top (+y) north → right edge (+x) east.
        let topNorth = Self.pose(x: Self.east, y: Self.north, z: Self.up)
        #expect(close(topNorth.yaw, -90 * Self.deg))
        #expect(close(topNorth.heading, 0) || close(topNorth.heading, 360))
        // Top east → right edge south.
        let topEast = Self.pose(x: Self.south, y: Self.east, z: Self.up)
        #expect(close(topEast.yaw, 180 * Self.deg))
        #expect(close(topEast.heading, 90))
        // Top south → right edge west: yaw +90°, heading 180°.
        let topSouth = Self.pose(x: Self.west, y: Self.south, z: Self.up)
        #expect(close(topSouth.yaw, 90 * Self.deg))
        #expect(close(topSouth.heading, 180))
    }

    @Test("upright portrait: gravity (0,−1,0), pitch +90°; facing north with its back: heading 0°")
    func upright() {
        // Top up; the screen (+z) faces south toward the user, so the back (−z) faces north;
        // +x = y × z = up × south = (0,0,1)×(−1,0,0) = (0,−1,0) = east.
        let a = Self.pose(x: Self.east, y: Self.up, z: Self.south)
        #expect(close(a.gravity.vector, Vector3(0, -1, 0)))
        #expect(close(a.pitch, 90 * Self.deg))
        #expect(close(a.heading, 0) || close(a.heading, 360))
    }

    @Test("the other screen orientations and face down read gravity as Core Motion does")
    func edges() {
        // landscapeLeft: +x up (home button right). Screen faces south: z = south; y = z × x = south × up
        // = (−1,0,0)×(0,0,1) = (0·1−0·0, 0·0−(−1)·1, 0) = (0, 1, 0) = west.
        let left = Self.pose(x: Self.up, y: Self.west, z: Self.south)
        #expect(close(left.gravity.vector, Vector3(-1, 0, 0)))
        // landscapeRight: −x up: x = down, z = south, y = z × x = (−1,0,0)×(0,0,−1) = (0, −1, 0) = east.
        let right = Self.pose(x: Self.down, y: Self.east, z: Self.south)
        #expect(close(right.gravity.vector, Vector3(1, 0, 0)))
        // Device-to-reference matrix (columns x, y, z) = [[0,0,−1],[0,−1,0],[−1,0,0]]:
        // pitch = asin(m21) = asin(0) = 0; roll = atan2(−m20, m22) = atan2(1, 0) = 90°;
        // yaw = atan2(−m01, m11) = atan2(0, −1) = 180°.
        #expect(close(right.pitch, 0) && close(right.roll, 90 * Self.deg) && close(right.yaw, 180 * Self.deg))
        // portraitUpsideDown: top down, screen south: x = y × z = down × south = (0,0,−1)×(−1,0,0) = (0, 1, 0).
        let upsideDown = Self.pose(x: Self.west, y: Self.down, z: Self.south)
        #expect(close(upsideDown.gravity.vector, Vector3(0, 1, 0)))
        #expect(close(upsideDown.pitch, -90 * Self.deg))
        // Face down: screen down, right edge north → top = z × x = down × north = (0,0,−1)×(1,0,0) = (0, −1, 0) = east.
        let faceDown = Self.pose(x: Self.north, y: Self.east, z: Self.down)
        #expect(close(faceDown.gravity.vector, Vector3(0, 0, 1)))
    }

    @Test("lying flat, tilted onto its right edge by 90°: roll +90°, pitch 0")
    func rollOnEdge() {
        // Start face up (identity) and turn +90° about the device y axis (counter-clockwise seen from
        // the top edge): z → x, x → −z. So +x points down, +z north, +y stays west.
        let a = Self.pose(x: Self.down, y: Self.west, z: Self.north)
        #expect(close(a.roll, 90 * Self.deg))
        #expect(close(a.pitch, 0))
        #expect(close(a.yaw, 0))
        // Gravity: down seen from the device is along +x.
        #expect(close(a.gravity.vector, Vector3(1, 0, 0)))
    }

    @Test("Euler round trip over the whole range, and the ranges themselves")
    func eulerRoundTrip() {
        var random = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            let roll = (random.unit() * 2 - 1) * .pi * 0.999
            let pitch = (random.unit() * 2 - 1) * .pi / 2 * 0.999
            let yaw = (random.unit() * 2 - 1) * .pi * 0.999
            let a = Attitude(roll: roll, pitch: pitch, yaw: yaw)
            #expect(close(a.roll, roll, 1e-7) && close(a.pitch, pitch, 1e-7) && close(a.yaw, yaw, 1e-7),
                    "(\(roll), \(pitch), \(yaw)) → (\(a.roll), \(a.pitch), \(a.yaw))")
        }
        // π is in range, −π is not: a half turn about z reads +π.
        #expect(close(Attitude(quaternion: Quaternion(axis: Vector3(0, 0, 1), angle: .pi)).yaw, .pi))
        #expect(close(Attitude(quaternion: Quaternion(axis: Vector3(0, 0, 1), angle: -.pi)).yaw, .pi))
    }

    @Test("gimbal lock: at pitch ±90° roll reads 0 and the whole turn is yaw; gravity stays right")
    func gimbalLock() {
        // Upright (pitch 90°) with a roll of 30°: only roll + yaw is observable.
        let a = Attitude(roll: 30 * Self.deg, pitch: 90 * Self.deg, yaw: 10 * Self.deg)
        #expect(close(a.pitch, 90 * Self.deg, 1e-6))
        #expect(close(a.roll, 0))
        // Rx(90°) carries the y axis onto z, so Rx(90°)·Ry(30°) = Rz(30°)·Rx(90°), and
        // Rz(10°)·Rx(90°)·Ry(30°) = Rz(40°)·Rx(90°): yaw 40°.
        #expect(close(a.yaw, 40 * Self.deg, 1e-6))
        // The rotation matrix still describes the pose exactly (no singularity there).
        let b = Attitude(roll: 0, pitch: 90 * Self.deg, yaw: 40 * Self.deg)
        #expect(close(a.rotationMatrix.rowMajor.enumerated().map { $0.element - b.rotationMatrix.rowMajor[$0.offset] }
            .map(abs).max()!, 0, 1e-9))
    }

    @Test("rotationMatrix maps reference vectors into device coordinates")
    func rotationMatrixConvention() {
        // Top to north flat: reference north seen from the device is its +y.
        let a = Self.pose(x: Self.east, y: Self.north, z: Self.up)
        #expect(close(a.rotationMatrix * Self.north, Vector3(0, 1, 0)))
        #expect(close(a.rotationMatrix * Vector3(0, 0, -1), a.gravity.vector))
        // m12 is row 1, column 2: for this pose the matrix is [[0,−1,0],[1,0,0],[0,0,1]].
        #expect(a.rotationMatrix.rowMajor.map { ($0 * 1e9).rounded() / 1e9 } == [0, -1, 0, 1, 0, 0, 0, 0, 1])
    }

    @Test("multiply(byInverseOf:) gives the change from a reference attitude")
    func relativeAttitude() {
        let start = Attitude(roll: 0, pitch: 0, yaw: 30 * Self.deg)
        var now = Attitude(roll: 0, pitch: 0, yaw: 50 * Self.deg)
        #expect(close(start.multiplied(byInverseOf: start).quaternion.w.magnitude, 1))
        now.multiply(byInverseOf: start)
        #expect(close(now.yaw, 20 * Self.deg))
        // Tilted reference: relative to face-up-rolled-by-40°, rolling to 70° is a 30° roll.
        let tilted = Attitude(roll: 40 * Self.deg, pitch: 0, yaw: 0)
        #expect(close(Attitude(roll: 70 * Self.deg, pitch: 0, yaw: 0).multiplied(byInverseOf: tilted).roll, 30 * Self.deg))
    }

    @Test("device motion: gravity + user acceleration = measured; heading −1 in arbitrary frames")
    func deviceMotion() {
        let attitude = Self.pose(x: Self.east, y: Self.north, z: Self.up) // flat, top north
        let measured = Acceleration(x: 0.1, y: -0.2, z: -1.3)
        let field = CalibratedMagneticField(field: MagneticField(x: 0, y: 20, z: -44), accuracy: .high)
        let north = DeviceMotion(timestamp: 5, attitude: attitude, rotationRate: RotationRate(x: 0, y: 0, z: 0),
                                 measuredAcceleration: measured, magneticField: field, referenceFrame: .xMagneticNorthZVertical)
        #expect(close(north.gravity.vector, Vector3(0, 0, -1)))
        // user = measured − gravity = (0.1, −0.2, −1.3) − (0, 0, −1) = (0.1, −0.2, −0.3)
        #expect(close(north.userAcceleration.vector, Vector3(0.1, -0.2, -0.3)))
        #expect(close(north.gravity.vector + north.userAcceleration.vector, measured.vector))
        #expect(close(north.heading, 0) || close(north.heading, 360))
        let arbitrary = DeviceMotion(timestamp: 5, attitude: attitude, rotationRate: RotationRate(x: 0, y: 0, z: 0),
                                     measuredAcceleration: measured, magneticField: field, referenceFrame: .xArbitraryZVertical)
        #expect(arbitrary.heading == -1)
    }

    @Test("reference frames: Core Motion bits, wire names, north frames")
    func referenceFrames() {
        #expect(AttitudeReferenceFrame.named.map(\.frame.rawValue) == [1, 2, 4, 8])
        #expect(AttitudeReferenceFrame(name: "xMagneticNorthZVertical") == .xMagneticNorthZVertical)
        #expect(AttitudeReferenceFrame(name: "xMagneticNorth") == nil)
        let available: AttitudeReferenceFrame = [.xArbitraryZVertical, .xTrueNorthZVertical]
        #expect(available.names == ["xArbitraryZVertical", "xTrueNorthZVertical"])
        #expect(available.isNorthReferenced)
        #expect(!AttitudeReferenceFrame.xArbitraryCorrectedZVertical.isNorthReferenced)
    }

    @Test("calibration accuracy is ordered uncalibrated < low < medium < high, raw −1…2")
    func accuracyOrder() {
        #expect(MagneticFieldCalibrationAccuracy.allCases.sorted() == [.uncalibrated, .low, .medium, .high])
        #expect(MagneticFieldCalibrationAccuracy.allCases.map(\.rawValue) == [-1, 0, 1, 2])
        #expect(MagneticFieldCalibrationAccuracy.low <= .low && .uncalibrated < .low)
        #expect(MagneticFieldCalibrationAccuracy(name: "medium") == .medium)
    }
}
