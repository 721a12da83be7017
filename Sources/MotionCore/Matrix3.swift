/// A 3×3 matrix of `Double`, stored row-major in three inline vectors (no heap allocation: it
/// is built on per-sample paths). `m * v` multiplies a column vector.
public struct Matrix3: Sendable, Hashable, Codable, CustomStringConvertible {
    public var row0: Vector3
    public var row1: Vector3
    public var row2: Vector3

    private enum CodingKeys: String, CodingKey { case rows }

    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        row0 = r0
        row1 = r1
        row2 = r2
    }

    /// Rows, top to bottom.
    public var rows: [Vector3] { [row0, row1, row2] }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rows, forKey: .rows)
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
        (row0, row1, row2) = (rows[0], rows[1], rows[2])
    }

    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    public static let zero = Matrix3(rows: .zero, .zero, .zero)

    public subscript(row: Int, column: Int) -> Double {
        switch row {
        case 0: return row0[column]
        case 1: return row1[column]
        default: return row2[column]
        }
    }

    /// The kernel/hwdb text form, row-major, shortest decimals: `1, 0, 0; 0, 1, 0; 0, 0, 1`.
    public var text: String {
        rows.map { row in row.components.map(DecimalText.shortest).joined(separator: ", ") }.joined(separator: "; ")
    }

    /// The nine values, row-major.
    public var rowMajor: [Double] { rows.flatMap(\.components) }

    public var determinant: Double { row0.dot(row1.cross(row2)) }

    public var transposed: Matrix3 {
        Matrix3(rows: Vector3(row0.x, row1.x, row2.x),
                Vector3(row0.y, row1.y, row2.y),
                Vector3(row0.z, row1.z, row2.z))
    }

    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2) }
    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.row0 - b.row0, a.row1 - b.row1, a.row2 - b.row2) }
    public static func * (m: Matrix3, s: Double) -> Matrix3 { Matrix3(rows: m.row0 * s, m.row1 * s, m.row2 * s) }

    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v))
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(rows: bt * a.row0, bt * a.row1, bt * a.row2)
    }

    public var description: String {
        rows.map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: "; ")
    }
}
