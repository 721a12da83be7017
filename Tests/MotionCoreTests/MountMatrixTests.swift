import Testing
import Foundation
import MotionCore

@Suite("MountMatrix")
struct MountMatrixTests {
    @Test("parses the kernel text form")
    func parsesKernelText() throws {
        let m = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m.matrix.rowMajor == [0, 1, 0, -1, 0, 0, 0, 0, 1])
        // det = r0 · (r1 × r2); r1 × r2 = (−1, 0, 0) × (0, 0, 1) = (0·1 − 0·0, 0·0 − (−1)·1, 0) = (0, 1, 0)
        // r0 · (0, 1, 0) = 1
        #expect(m.matrix.determinant == 1)
        #expect(m.isProper)
        #expect(m.description == "0, 1, 0; -1, 0, 0; 0, 0, 1")
    }

    @Test("whitespace variants parse to the same matrix", arguments: [
        "0,1,0;-1,0,0;0,0,1",
        "  0 , 1 , 0 ;  -1,0,0 ;0, 0,   1  ",
        "\t0,\t1,\t0;\t-1,\t0,\t0;\t0,\t0,\t1\t",
        "0, 1, 0; -1, 0, 0; 0, 0, 1\n",
        "\n 0, 1, 0; -1, 0, 0; 0, 0, 1 \n",
    ])
    func whitespaceVariants(text: String) throws {
        let m = try MountMatrix(parsing: text)
        #expect(m.matrix == Matrix3(rowMajor: [0, 1, 0, -1, 0, 0, 0, 0, 1]))
    }

    @Test("decimal values")
    func decimalValues() throws {
        // diag(0.5, 0.5, 4): det = 0.5 · 0.5 · 4 = 1
        let m = try MountMatrix(parsing: "0.5, 0, 0; 0, 0.5, 0; 0, 0, 4")
        #expect(m.matrix.rowMajor == [0.5, 0, 0, 0, 0.5, 0, 0, 0, 4])
        #expect(m.matrix.determinant == 1)
        #expect(m.description == "0.5, 0, 0; 0, 0.5, 0; 0, 0, 4")
        let n = try MountMatrix(parsing: "-0.25, 1.5, 0; 2, 0, 0; 0, 0, 1.0")
        #expect(n.matrix.rowMajor == [-0.25, 1.5, 0, 2, 0, 0, 0, 0, 1])
    }

    @Test("wrong number of rows is malformed")
    func wrongRowCount() {
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "1, 0, 0; 0, 1, 0") }
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 1; 0, 0, 0") }
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "") }
        do {
            _ = try MountMatrix(parsing: "1, 0, 0; 0, 1, 0")
            Issue.record("expected an error")
        } catch {
            guard case .malformed(let reason) = error else { Issue.record("expected .malformed, got \(error)"); return }
            #expect(reason.contains("3 rows"))
            #expect(reason.contains("found 2"))
        }
    }

    @Test("wrong number of columns is malformed")
    func wrongColumnCount() {
        do {
            _ = try MountMatrix(parsing: "1, 0, 0; 0, 1; 0, 0, 1")
            Issue.record("expected an error")
        } catch {
            guard case .malformed(let reason) = error else { Issue.record("expected .malformed, got \(error)"); return }
            #expect(reason.contains("found 2"))
        }
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "1, 0, 0, 0; 0, 1, 0; 0, 0, 1") }
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 1,") }
    }

    @Test("a token that is not a number is malformed")
    func nonNumberToken() {
        #expect(throws: MountMatrixError.malformed("'x' is not a number")) {
            try MountMatrix(parsing: "1, x, 0; 0, 1, 0; 0, 0, 1")
        }
        #expect(throws: MountMatrixError.malformed("'' is not a number")) {
            try MountMatrix(parsing: "1, , 0; 0, 1, 0; 0, 0, 1")
        }
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 1a") }
    }

    @Test("an all-zero row names the axis")
    func allZeroRow() {
        for (text, axis) in [("1, 0, 0; 0, 1, 0; 0, 0, 0", "axis z"),
                             ("0, 0, 0; 0, 1, 0; 0, 0, 1", "axis x"),
                             ("1, 0, 0; 0, 0, 0; 0, 0, 1", "axis y")] {
            do {
                _ = try MountMatrix(parsing: text)
                Issue.record("expected an error for \(text)")
            } catch {
                guard case .malformed = error else { Issue.record("expected .malformed, got \(error)"); continue }
                #expect(error.description.contains(axis), "\(error.description) should name \(axis)")
            }
        }
    }

    @Test("non-finite values are rejected")
    func nonFinite() {
        let m = Matrix3(rowMajor: [1, 0, 0, 0, .nan, 0, 0, 0, 1])
        #expect(throws: MountMatrixError.self) { try MountMatrix(m) }
    }

    @Test("a singular matrix is rejected with its determinant")
    func singular() {
        // Rows (1,0,0), (0,1,0), (1,1,0): r1 × r2 = (1·0 − 0·1, 0·1 − 0·0, 0·1 − 1·1) = (0, 0, −1);
        // r0 · (0, 0, −1) = 0 → determinant 0.
        #expect(throws: MountMatrixError.singular(determinant: 0)) {
            try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 1, 1, 0")
        }
        #expect(throws: MountMatrixError.singular(determinant: 0)) {
            try MountMatrix(Matrix3(rowMajor: [1, 0, 0, 0, 1, 0, 1, 1, 0]))
        }
    }

    @Test("an improper matrix is detected and made proper by negating the z row")
    func improper() throws {
        let m = try MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        // r1 × r2 = (−1, 0, 0) × (0, 0, 1) = (0, 1, 0); r0 · (0, 1, 0) = −1
        #expect(m.matrix.determinant == -1)
        #expect(!m.isProper)
        let p = m.proper
        #expect(p.matrix == Matrix3(rowMajor: [0, -1, 0, -1, 0, 0, 0, 0, -1]))
        #expect(p.description == "0, -1, 0; -1, 0, 0; 0, 0, -1")
        // Negating one row negates the determinant: −(−1) = +1
        #expect(p.matrix.determinant == 1)
        #expect(p.isProper)
        // The original is kept as given.
        #expect(m.matrix == Matrix3(rowMajor: [0, -1, 0, -1, 0, 0, 0, 0, 1]))
    }

    @Test("a proper matrix is returned unchanged")
    func properUnchanged() throws {
        let m = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m.proper == m)
        #expect(MountMatrix.identity.proper == .identity)
        #expect(MountMatrix.identity.isProper)
        #expect(MountMatrix.identity.description == "1, 0, 0; 0, 1, 0; 0, 0, 1")
    }

    @Test("apply dots each row with the vector")
    func apply() throws {
        let m = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        // (row0·v, row1·v, row2·v) = (v.y, −v.x, v.z)
        #expect(m.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(m.apply(Vector3(0, 0, -1)) == Vector3(0, 0, -1))
        let d = try MountMatrix(parsing: "0.5, 0, 0; 0, 0.5, 0; 0, 0, 4")
        #expect(d.apply(Vector3(2, -4, 0.25)) == Vector3(1, -2, 1))
    }
}

@Suite("MountMatrix coding")
struct MountMatrixCodingTests {
    @Test("decoding validates like the throwing initialiser")
    func decodingValidates() throws {
        let good = try JSONDecoder().decode(MountMatrix.self, from: Data(#"{"rows":[{"x":0,"y":1,"z":0},{"x":-1,"y":0,"z":0},{"x":0,"y":0,"z":1}]}"#.utf8))
        // rows (0,1,0), (−1,0,0), (0,0,1) applied to (1,2,3) → (2, −1, 3)
        #expect(good.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(MountMatrix.self, from: Data(#"{"rows":[{"x":0,"y":0,"z":0},{"x":0,"y":1,"z":0},{"x":0,"y":0,"z":1}]}"#.utf8))
        }
        let encoded = try JSONEncoder().encode(good)
        #expect(try JSONDecoder().decode(MountMatrix.self, from: encoded) == good)
    }
}

@Suite("Matrix3 coding")
struct Matrix3CodingTests {
    @Test("a matrix with other than three rows does not decode")
    func rowCount() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Matrix3.self, from: Data(#"{"rows":[{"x":1,"y":0,"z":0},{"x":0,"y":1,"z":0}]}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MountMatrix.self, from: Data(#"{"rows":[]}"#.utf8))
        }
    }
}
