/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations:
/// `matrix == vectors * diag(values) * vectors.transposed`, with orthonormal eigenvectors in the
/// columns of `vectors`. Jacobi is short, unconditionally stable and accurate to rounding for
/// 3×3; the magnetometer calibration uses it only when it fits, not per sample.
struct SymmetricEigen {
    var values: Vector3
    var vectors: Matrix3

    init(_ matrix: Matrix3) {
        var a = matrix.rows
        var v = Matrix3.identity.rows
        let scale = a.reduce(0) { $0 + $1.dot($1) }
        for _ in 0..<16 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            if off <= 1e-30 * scale { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                // The rotation in the (p, q) plane that zeroes a[p][q] (Numerical Recipes' form).
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta < 0 ? -1.0 : 1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot()
                let s = t * c
                for k in 0..<3 { // columns p, q of a and v
                    (a[k][p], a[k][q]) = (c * a[k][p] - s * a[k][q], s * a[k][p] + c * a[k][q])
                    (v[k][p], v[k][q]) = (c * v[k][p] - s * v[k][q], s * v[k][p] + c * v[k][q])
                }
                for k in 0..<3 { // rows p, q of a
                    (a[p][k], a[q][k]) = (c * a[p][k] - s * a[q][k], s * a[p][k] + c * a[q][k])
                }
            }
        }
        values = Vector3(a[0][0], a[1][1], a[2][2])
        vectors = Matrix3(rows: v[0], v[1], v[2])
    }

    var smallest: Double { min(values.x, values.y, values.z) }
    var largest: Double { max(values.x, values.y, values.z) }

    /// The matrix with the same eigenvectors and eigenvalues `f(λ)` (e.g. a square root or inverse).
    func mapped(_ f: (Double) -> Double) -> Matrix3 {
        let d = Vector3(f(values.x), f(values.y), f(values.z))
        let v = vectors
        let scaled = Matrix3(rows: Vector3(v.row0.x * d.x, v.row0.y * d.y, v.row0.z * d.z),
                             Vector3(v.row1.x * d.x, v.row1.y * d.y, v.row1.z * d.z),
                             Vector3(v.row2.x * d.x, v.row2.y * d.y, v.row2.z * d.z))
        return scaled * v.transposed
    }
}
