import Glibc

/// Orientation error as the BROAD benchmark defines it (Laidig et al., Data 6(7):72, 2021,
/// `example_code/broad_utils.py`), for estimates and references that both rotate sensor-frame
/// vectors into the same earth frame with Z up.
///
/// Per row, the error quaternion in the earth frame is `e = estimate ⊗ reference⁻¹` with
/// `e.w ≥ 0`; total = 2·acos(|e.w|), heading = 2·atan(|e.z / e.w|), inclination =
/// 2·acos(√(e.w² + e.z²)). Errors are RMSE in degrees over the evaluated rows. For a 6D
/// (magnetometer-free) estimate the heading is arbitrary: a constant heading offset, the
/// circular mean of 2·atan2(e.z, e.w), is removed first and what remains is heading drift.
public enum OrientationError {
    /// Total, heading and inclination error, degrees.
    public struct Components: Sendable, Hashable {
        public var total: Double
        public var heading: Double
        public var inclination: Double

        public init(total: Double, heading: Double, inclination: Double) {
            self.total = total
            self.heading = heading
            self.inclination = inclination
        }
    }

    /// RMSE of each component over the rows evaluated, degrees.
    public struct Summary: Sendable, Hashable {
        public var rmse: Components
        public var rows: Int
    }

    /// motiond's north frames are X north, Y west, Z up; BROAD's references (and VQF's outputs)
    /// are East-North-Up. A +90° turn about Z carries the first into the second (north
    /// (1, 0, 0) → (0, 1, 0), west (0, 1, 0) → (−1, 0, 0)); this composes it with an attitude.
    public static func eastNorthUp(fromNorthWestUp attitude: Quaternion) -> Quaternion {
        Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2) * attitude
    }

    /// The error quaternion `estimate ⊗ reference⁻¹`, sign-normalised to `w ≥ 0`.
    public static func errorQuaternion(estimate: Quaternion, reference: Quaternion) -> Quaternion {
        positive((estimate.normalized * reference.normalized.inverse).normalized)
    }

    /// The three error components of one error quaternion (already `w ≥ 0`), degrees.
    public static func components(of e: Quaternion) -> Components {
        let degrees = 180 / Double.pi
        return Components(
            total: 2 * acos(min(1, abs(e.w))) * degrees,
            heading: 2 * atan(abs(e.z / e.w)) * degrees,
            inclination: 2 * acos(min(1, (e.w * e.w + e.z * e.z).squareRoot())) * degrees)
    }

    /// RMSE over the rows where `evaluate` is true and both a reference and an estimate exist
    /// (no estimate: the estimator was still warming up).
    /// `removeHeadingOffset` is the 6D rule above.
    public static func summarize(estimates: [Quaternion?], references: [Quaternion?], evaluate: [Bool],
                                 removeHeadingOffset: Bool) -> Summary {
        precondition(estimates.count == references.count && references.count == evaluate.count, "row counts differ")
        var errors: [Quaternion] = []
        for i in estimates.indices where evaluate[i] {
            guard let reference = references[i], let estimate = estimates[i] else { continue }
            errors.append(errorQuaternion(estimate: estimate, reference: reference))
        }
        if removeHeadingOffset, !errors.isEmpty {
            var sinSum = 0.0, cosSum = 0.0
            for e in errors {
                let psi = 2 * atan2(e.z, e.w)
                sinSum += sin(psi)
                cosSum += cos(psi)
            }
            let offset = atan2(sinSum, cosSum)
            let undo = Quaternion(w: cos(-offset / 2), x: 0, y: 0, z: sin(-offset / 2))
            errors = errors.map { positive(undo * $0) }
        }
        var sum = Components(total: 0, heading: 0, inclination: 0)
        for e in errors {
            let c = components(of: e)
            sum.total += c.total * c.total
            sum.heading += c.heading * c.heading
            sum.inclination += c.inclination * c.inclination
        }
        let n = Double(max(1, errors.count))
        return Summary(rmse: Components(total: (sum.total / n).squareRoot(), heading: (sum.heading / n).squareRoot(),
                                        inclination: (sum.inclination / n).squareRoot()),
                       rows: errors.count)
    }

    private static func positive(_ q: Quaternion) -> Quaternion {
        q.w < 0 ? Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z) : q
    }
}
