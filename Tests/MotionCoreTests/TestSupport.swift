import MotionCore

/// Shared tolerance helpers for the MotionCore tests.
func isClose(_ a: Double, _ b: Double, tolerance: Double = 1e-12) -> Bool {
    abs(a - b) <= tolerance
}

func isClose(_ a: Vector3, _ b: Vector3, tolerance: Double = 1e-12) -> Bool {
    isClose(a.x, b.x, tolerance: tolerance)
        && isClose(a.y, b.y, tolerance: tolerance)
        && isClose(a.z, b.z, tolerance: tolerance)
}

func isClose(_ a: Matrix3, _ b: Matrix3, tolerance: Double = 1e-12) -> Bool {
    zip(a.rowMajor, b.rowMajor).allSatisfy { isClose($0, $1, tolerance: tolerance) }
}

/// Two quaternions describe the same rotation when they are equal or opposite (q and −q).
func isSameRotation(_ a: Quaternion, _ b: Quaternion, tolerance: Double = 1e-12) -> Bool {
    let same = isClose(a.w, b.w, tolerance: tolerance) && isClose(a.x, b.x, tolerance: tolerance)
        && isClose(a.y, b.y, tolerance: tolerance) && isClose(a.z, b.z, tolerance: tolerance)
    let opposite = isClose(a.w, -b.w, tolerance: tolerance) && isClose(a.x, -b.x, tolerance: tolerance)
        && isClose(a.y, -b.y, tolerance: tolerance) && isClose(a.z, -b.z, tolerance: tolerance)
    return same || opposite
}
