import FoundationEssentials
import Glibc

/// A sensor mount matrix: the rotation that maps chip-frame readings into the device frame,
/// applied as `v_device = M · v_chip` (row i of M dotted with the reading gives device axis i).
///
/// Text form (kernel `iio_show_mount_matrix`, udev hwdb `ACCEL_MOUNT_MATRIX`):
/// `"a, b, c; d, e, f; g, h, i"`, row-major, decimal numbers parsed locale-independently.
///
/// The device frame must be right-handed, so a matrix must be proper (determinant +1).
/// Many hwdb matrices were only ever checked on x and y and are improper (determinant −1);
/// ``proper`` turns those into the matching proper matrix by negating the z row, which keeps
/// the x and y axes that desktop software verified and makes z follow from them.
public struct MountMatrix: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The matrix exactly as given.
    public let matrix: Matrix3

    public static let identity = MountMatrix(validated: .identity)

    private init(validated matrix: Matrix3) {
        self.matrix = matrix
    }

    /// Validates a matrix: finite values, no all-zero row, not singular.
    public init(_ matrix: Matrix3) throws(MountMatrixError) {
        let axes = ["x", "y", "z"]
        for (i, row) in matrix.rows.enumerated() {
            guard row.isFinite else { throw .malformed("row \(axes[i]) has a non-finite value") }
            if row == .zero { throw .malformed("axis \(axes[i]) is all zeroes") }
        }
        let det = matrix.determinant
        guard abs(det) > 1e-6 else { throw .singular(determinant: det) }
        self.matrix = matrix
    }

    /// Parses the kernel/hwdb text form.
    public init(parsing text: String) throws(MountMatrixError) {
        let trimmed = text.trimmingWhitespace()
        let rows = trimmed.split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else {
            throw .malformed("expected 3 rows separated by ';', found \(rows.count) in '\(trimmed)'")
        }
        var values: [Double] = []
        for row in rows {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 3 else {
                throw .malformed("expected 3 values per row separated by ',', found \(cells.count) in '\(row.trimmingWhitespace(newlines: false))'")
            }
            for cell in cells {
                let token = cell.trimmingWhitespace(newlines: false)
                guard let value = Double(token) else {
                    throw .malformed("'\(token)' is not a number")
                }
                values.append(value)
            }
        }
        try self.init(Matrix3(rowMajor: values))
    }

    /// Decoding validates like ``init(_:)``: a stored matrix cannot bypass the checks.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(container.decode(Matrix3.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(matrix)
    }

    /// True for a proper matrix (determinant > 0): it keeps the frame right-handed.
    public var isProper: Bool { matrix.determinant > 0 }

    /// The proper matrix to use: this one if proper, otherwise this one with its z row negated.
    public var proper: MountMatrix {
        isProper ? self : zRowNegated
    }

    /// The improper matrix to use for a specific-force accelerometer: this one if improper,
    /// otherwise this one with its z row negated. Its x and y rows are the given ones — what
    /// desktop software checked — and its z row turns the chip's specific force (+1 g up) into
    /// the gravity vector (−1 g up, lying face up): the matrix is the negation of the proper
    /// rotation ``negated`` gives, in which the chip's gyroscope and magnetometer are read.
    public var improper: MountMatrix {
        isProper ? zRowNegated : self
    }

    /// This matrix with its z row negated (0 − x, not −x: no negative zeros in the text form).
    private var zRowNegated: MountMatrix {
        let r = matrix.rows
        return MountMatrix(validated: Matrix3(rows: r[0], r[1], .zero - r[2]))
    }

    /// This matrix with every entry negated (the determinant changes sign).
    public var negated: MountMatrix {
        let r = matrix.rows
        // 0 − x, not −x: no negative zeros in the text form.
        return MountMatrix(validated: Matrix3(rows: .zero - r[0], .zero - r[1], .zero - r[2]))
    }

    /// The matrix to read a `kind` sensor through when this one is given for it (hwdb, sysfs,
    /// the configuration), read as iio-sensor-proxy and the desktop read matrices: an
    /// accelerometer's x and y after it carry the gravity vector's sign. A chip that reports the
    /// gravity vector (a HID sensor hub) is read through the matrix made proper. One that reports
    /// the specific force (every other IIO driver: +1 g on the up axis) is read, for an
    /// accelerometer, through the matrix made improper — x and y as given, z turning the
    /// specific force into the gravity vector — and for a gyroscope or magnetometer through that
    /// negated: the proper rotation of one right-handed frame in which gravity turns as the
    /// gyroscope says.
    public func applied(for kind: SensorKind, specificForce: Bool) -> MountMatrix {
        guard specificForce else { return proper }
        return kind.isAccelerometer ? improper : improper.negated
    }

    /// Device-frame vector for a chip-frame vector.
    public func apply(_ v: Vector3) -> Vector3 { matrix * v }

    /// The kernel text form, e.g. `1, 0, 0; 0, 1, 0; 0, 0, 1`.
    public var description: String { matrix.text }
}

/// Why a mount matrix was rejected.
public enum MountMatrixError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case singular(determinant: Double)

    public var description: String {
        switch self {
        case .malformed(let reason): return "malformed mount matrix: \(reason)"
        case .singular(let det): return "singular mount matrix (determinant \(det))"
        }
    }
}
