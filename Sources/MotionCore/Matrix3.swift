/// A 3×3 matrix of `Double`, stored row-major. `m * v` multiplies a column vector.
public struct Matrix3: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Rows, top to bottom.
    public var rows: [Vector3]

    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        rows = [r0, r1, r2]
    }

    /// Builds a matrix from nine row-major values.
    public init(rowMajor v: [Double]) {
        precondition(v.count == 9, "Matrix3 needs 9 values, got \(v.count)")
        self.init(rows: Vector3(v[0], v[1], v[2]), Vector3(v[3], v[4], v[5]), Vector3(v[6], v[7], v[8]))
    }

    /// Decoding requires exactly three rows, like every other way of making a matrix.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let rows = try container.decode([Vector3].self, forKey: .rows)
        guard rows.count == 3 else {
            throw DecodingError.dataCorruptedError(forKey: .rows, in: container, debugDescription: "a 3×3 matrix needs 3 rows, found \(rows.count)")
        }
        self.rows = rows
    }

    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    public subscript(row: Int, column: Int) -> Double { rows[row][column] }

    /// The nine values, row-major.
    public var rowMajor: [Double] { rows.flatMap(\.components) }

    public var determinant: Double { rows[0].dot(rows[1].cross(rows[2])) }

    public var transposed: Matrix3 {
        Matrix3(rows: Vector3(rows[0].x, rows[1].x, rows[2].x),
                Vector3(rows[0].y, rows[1].y, rows[2].y),
                Vector3(rows[0].z, rows[1].z, rows[2].z))
    }

    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.rows[0].dot(v), m.rows[1].dot(v), m.rows[2].dot(v))
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(rows: bt * a.rows[0], bt * a.rows[1], bt * a.rows[2])
    }

    public var description: String {
        rows.map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: "; ")
    }
}
