/// A small dense square linear system `A·x = b` (row-major `A`, n ≤ a dozen), solved by
/// Gaussian elimination with partial pivoting. Used for the occasional least-squares fits
/// (normal equations) of the calibration and self-check code, never per sample.
public struct LinearSystem: Sendable, Hashable {
    public let size: Int
    /// Row-major n×n coefficients.
    public var matrix: [Double]

    public init(size: Int, matrix: [Double]) {
        precondition(matrix.count == size * size, "a \(size)×\(size) system needs \(size * size) coefficients")
        self.size = size
        self.matrix = matrix
    }

    /// Solves for every right-hand side in `columns` (each of length n) at once; nil when the
    /// matrix is singular or badly conditioned (a pivot below `1e-12` of the largest entry).
    public func solve(_ columns: [[Double]]) -> [[Double]]? {
        let n = size
        var a = matrix
        var rhs = columns
        let scale = a.map(abs).max() ?? 0
        guard scale > 0, scale.isFinite else { return nil }
        for k in 0..<n {
            var pivot = k
            for row in (k + 1)..<max(k + 1, n) where abs(a[row * n + k]) > abs(a[pivot * n + k]) { pivot = row }
            guard abs(a[pivot * n + k]) > 1e-12 * scale else { return nil }
            if pivot != k {
                for column in 0..<n { a.swapAt(k * n + column, pivot * n + column) }
                for index in rhs.indices { rhs[index].swapAt(k, pivot) }
            }
            for row in (k + 1)..<max(k + 1, n) {
                let factor = a[row * n + k] / a[k * n + k]
                guard factor != 0 else { continue }
                for column in k..<n { a[row * n + column] -= factor * a[k * n + column] }
                for index in rhs.indices { rhs[index][row] -= factor * rhs[index][k] }
            }
        }
        for index in rhs.indices {
            for row in stride(from: n - 1, through: 0, by: -1) {
                var sum = rhs[index][row]
                for column in (row + 1)..<max(row + 1, n) { sum -= a[row * n + column] * rhs[index][column] }
                rhs[index][row] = sum / a[row * n + row]
            }
        }
        return rhs
    }

    /// The solution for one right-hand side.
    public func solve(_ b: [Double]) -> [Double]? { solve([b])?.first }

    /// The inverse's diagonal (the variances of a least-squares fit, up to the noise level).
    public func inverseDiagonal() -> [Double]? {
        let identity = (0..<size).map { column in (0..<size).map { $0 == column ? 1.0 : 0.0 } }
        return solve(identity).map { columns in columns.indices.map { columns[$0][$0] } }
    }
}
