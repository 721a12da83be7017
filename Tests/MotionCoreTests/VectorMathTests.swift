import Testing
import MotionCore

@Suite("Vector3 and Matrix3")
struct VectorMathTests {
    let ex = Vector3(1, 0, 0)
    let ey = Vector3(0, 1, 0)
    let ez = Vector3(0, 0, 1)

    @Test("cross products of the basis vectors follow the right-hand rule")
    func crossOfBasisVectors() {
        // x × y = z, y × z = x, z × x = y; reversing the order negates.
        #expect(ex.cross(ey) == ez)
        #expect(ey.cross(ez) == ex)
        #expect(ez.cross(ex) == ey)
        #expect(ey.cross(ex) == Vector3(0, 0, -1))
        #expect(ex.cross(ex) == .zero)
    }

    @Test("cross and dot of general vectors")
    func crossAndDotOfGeneralVectors() {
        let a = Vector3(1, 2, 3), b = Vector3(4, 5, 6)
        // a × b = (2·6 − 3·5, 3·4 − 1·6, 1·5 − 2·4) = (12 − 15, 12 − 6, 5 − 8) = (−3, 6, −3)
        #expect(a.cross(b) == Vector3(-3, 6, -3))
        // a · b = 4 + 10 + 18 = 32
        #expect(a.dot(b) == 32)
        // |(3, 4, 12)| = √(9 + 16 + 144) = √169 = 13
        #expect(Vector3(3, 4, 12).norm == 13)
    }

    @Test("arithmetic operators, subscripts and finiteness")
    func operatorsAndSubscripts() {
        let a = Vector3(1, -2, 3), b = Vector3(0.5, 4, -1)
        #expect(a + b == Vector3(1.5, 2, 2))      // (1+0.5, −2+4, 3−1)
        #expect(a - b == Vector3(0.5, -6, 4))     // (1−0.5, −2−4, 3+1)
        #expect(a * 2 == Vector3(2, -4, 6))
        #expect(2 * a == Vector3(2, -4, 6))
        #expect(a / 2 == Vector3(0.5, -1, 1.5))
        #expect(-a == Vector3(-1, 2, -3))
        #expect(a.components == [1, -2, 3])
        var c = a
        c[0] = 7; c[1] = 8; c[2] = 9
        #expect(c == Vector3(x: 7, y: 8, z: 9))
        #expect(c[2] == 9)
        #expect(a.isFinite)
        #expect(!Vector3(1, .nan, 0).isFinite)
        #expect(!Vector3(0, 0, .infinity).isFinite)
    }

    @Test("determinant of known matrices")
    func determinant() {
        // | 2 0 1 |
        // | 1 3 2 |   det = 2·(3·0 − 2·1) − 0·(1·0 − 2·1) + 1·(1·1 − 3·1)
        // | 1 1 0 |       = 2·(−2) − 0 + 1·(−2) = −4 − 2 = −6
        let m = Matrix3(rowMajor: [2, 0, 1, 1, 3, 2, 1, 1, 0])
        #expect(m.determinant == -6)
        #expect(Matrix3.identity.determinant == 1)
        // Swapping two rows of the identity gives −1.
        #expect(Matrix3(rows: ey, ex, ez).determinant == -1)
        // diag(2, 3, 4): 2·3·4 = 24
        #expect(Matrix3(rowMajor: [2, 0, 0, 0, 3, 0, 0, 0, 4]).determinant == 24)
    }

    @Test("matrix times vector dots each row with the vector")
    func matrixTimesVector() {
        let m = Matrix3(rowMajor: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let v = Vector3(1, 0, -1)
        // (1 − 3, 4 − 6, 7 − 9) = (−2, −2, −2)
        #expect(m * v == Vector3(-2, -2, -2))
        let w = Vector3(2, 1, 1)
        // (2 + 2 + 3, 8 + 5 + 6, 14 + 8 + 9) = (7, 19, 31)
        #expect(m * w == Vector3(7, 19, 31))
        #expect(Matrix3.identity * w == w)
    }

    @Test("matrix times matrix")
    func matrixTimesMatrix() {
        let a = Matrix3(rowMajor: [1, 2, 0, 0, 1, 0, 2, 0, 1])
        let b = Matrix3(rowMajor: [1, 0, 1, 2, 1, 0, 0, 3, 1])
        // Row 0 of a = (1, 2, 0): (1·1 + 2·2 + 0·0, 1·0 + 2·1 + 0·3, 1·1 + 2·0 + 0·1) = (5, 2, 1)
        // Row 1 of a = (0, 1, 0): row 1 of b = (2, 1, 0)
        // Row 2 of a = (2, 0, 1): (2·1 + 0 + 0, 2·0 + 0 + 3, 2·1 + 0 + 1) = (2, 3, 3)
        #expect(a * b == Matrix3(rowMajor: [5, 2, 1, 2, 1, 0, 2, 3, 3]))
        // b · a: row 0 of b = (1, 0, 1): (1 + 0 + 2, 2 + 0 + 0, 0 + 0 + 1) = (3, 2, 1)
        //        row 1 of b = (2, 1, 0): (2 + 0 + 0, 4 + 1 + 0, 0) = (2, 5, 0)
        //        row 2 of b = (0, 3, 1): (0 + 0 + 2, 0 + 3 + 0, 0 + 0 + 1) = (2, 3, 1)
        #expect(b * a == Matrix3(rowMajor: [3, 2, 1, 2, 5, 0, 2, 3, 1]))
        #expect(a * .identity == a)
        #expect(Matrix3.identity * a == a)
    }

    @Test("transpose swaps rows and columns")
    func transpose() {
        let m = Matrix3(rowMajor: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(m.transposed == Matrix3(rowMajor: [1, 4, 7, 2, 5, 8, 3, 6, 9]))
        #expect(m.transposed.transposed == m)
        #expect(m[0, 2] == 3)
        #expect(m.transposed[0, 2] == 7)
        // A rotation's transpose is its inverse: Rz(90°) = [0 −1 0; 1 0 0; 0 0 1].
        let rz = Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])
        #expect(rz * rz.transposed == .identity)
    }

    @Test("rowMajor round trip and description")
    func rowMajorAndDescription() {
        let values: [Double] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        #expect(Matrix3(rowMajor: values).rowMajor == values)
        #expect(Matrix3.identity.description == "1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 1.0")
        #expect(Vector3(1, 2, 3).description == "(1.0, 2.0, 3.0)")
    }
}
