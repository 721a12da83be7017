import Glibc

/// Least-squares fits of the surface raw magnetometer readings lie on as the device turns in a
/// constant field: an ellipsoid (hard and soft iron) or a sphere (hard iron only).
///
/// Ellipsoid: the quadric Ax²+By²+Cz²+2Dxy+2Exz+2Fyz+2Gx+2Hy+2Iz = 1, i.e. pᵀMp + 2bᵀp = 1, is
/// fitted by linear least squares; its centre is c = −M⁻¹b and its shape N = M/k with
/// k = 1 + cᵀMc, so (p − c)ᵀN(p − c) = 1. With R the geometric mean of the semi-axes, the
/// soft-iron correction W = R·√N (symmetric square root) has unit determinant and maps the
/// ellipsoid onto the sphere of radius R: |W(p − c)| = R.
///
/// Sphere: |p − c|² = R², linear in (c, R² − |c|²) as p·p = 2c·p + (R² − |c|²).
///
/// Both solve their normal equations with ``LinearSystem``, on readings centred at their mean and
/// scaled by their RMS spread: this keeps the equations well conditioned and the origin inside the
/// surface (the quadric form cannot describe a surface through the origin).
enum EllipsoidFit {
    struct Result {
        var calibration: MagnetometerCalibration
        /// Longest over shortest semi-axis (1 for a sphere): the condition number of the soft iron.
        var axisRatio: Double
        var isEllipsoid: Bool
    }

    static func ellipsoid(_ points: [Vector3]) -> Result? {
        let equations = leastSquares(points, unknowns: 9) { p, row in
            row[0] = p.x * p.x; row[1] = p.y * p.y; row[2] = p.z * p.z
            row[3] = 2 * p.x * p.y; row[4] = 2 * p.x * p.z; row[5] = 2 * p.y * p.z
            row[6] = 2 * p.x; row[7] = 2 * p.y; row[8] = 2 * p.z
            return 1
        }
        guard let (mean, scale, q) = equations else { return nil }
        let m = Matrix3(rowMajor: [q[0], q[3], q[4], q[3], q[1], q[5], q[4], q[5], q[2]])
        let eigen = SymmetricEigen(m)
        guard eigen.smallest > 0 else { return nil } // not an ellipsoid
        let centre = -(eigen.mapped { 1 / $0 } * Vector3(q[6], q[7], q[8]))
        let k = 1 + centre.dot(m * centre)
        // Semi-axes a = √(k/λ); R = (a₁a₂a₃)^⅓; √N = √(M/k).
        let radius = pow(k * k * k / (eigen.values.x * eigen.values.y * eigen.values.z), 1.0 / 6)
        let softIron = eigen.mapped { radius * ($0 / k).squareRoot() }
        let calibration = MagnetometerCalibration(offset: mean + centre * scale, softIron: softIron,
                                                  fieldStrength: radius * scale)
        guard calibration.offset.isFinite, calibration.fieldStrength.isFinite else { return nil }
        return Result(calibration: calibration, axisRatio: (eigen.largest / eigen.smallest).squareRoot(), isEllipsoid: true)
    }

    static func sphere(_ points: [Vector3]) -> Result? {
        let equations = leastSquares(points, unknowns: 4) { p, row in
            row[0] = 2 * p.x; row[1] = 2 * p.y; row[2] = 2 * p.z; row[3] = 1
            return p.dot(p)
        }
        guard let (mean, scale, s) = equations else { return nil }
        let centre = Vector3(s[0], s[1], s[2])
        let squaredRadius = s[3] + centre.dot(centre)
        guard squaredRadius > 0 else { return nil }
        let calibration = MagnetometerCalibration(offset: mean + centre * scale, softIron: .identity,
                                                  fieldStrength: squaredRadius.squareRoot() * scale)
        guard calibration.offset.isFinite, calibration.fieldStrength.isFinite else { return nil }
        return Result(calibration: calibration, axisRatio: 1, isEllipsoid: false)
    }

    /// The x minimising ‖A x − b‖ via the normal equations AᵀA x = Aᵀb, on the points centred at
    /// their mean and divided by their RMS distance from it (`scale`); `equation` writes the row of A
    /// for such a normalised point and returns its b. Nil when the points do not determine x.
    private static func leastSquares(_ points: [Vector3], unknowns n: Int, _ equation: (Vector3, inout [Double]) -> Double)
        -> (mean: Vector3, scale: Double, x: [Double])? {
        guard !points.isEmpty else { return nil }
        let mean = points.reduce(Vector3.zero, +) / Double(points.count)
        let scale = (points.reduce(0) { $0 + ($1 - mean).dot($1 - mean) } / Double(points.count)).squareRoot()
        guard scale > 0 else { return nil }
        var ata = [Double](repeating: 0, count: n * n)
        var atb = [Double](repeating: 0, count: n)
        var row = [Double](repeating: 0, count: n)
        for point in points {
            let b = equation((point - mean) / scale, &row)
            for i in 0..<n {
                for j in 0...i { ata[i * n + j] += row[i] * row[j] }
                atb[i] += row[i] * b
            }
        }
        for i in 0..<n { for j in 0..<i { ata[j * n + i] = ata[i * n + j] } }
        return LinearSystem(size: n, matrix: ata).solve(atb).map { (mean, scale, $0) }
    }
}
