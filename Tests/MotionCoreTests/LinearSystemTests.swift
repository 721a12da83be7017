import Testing
import MotionCore

@Suite("LinearSystem")
struct LinearSystemTests {
    @Test("solves a system that needs pivoting, and inverts")
    func solves() throws {
        // First pivot is zero: partial pivoting must swap rows.
        let system = LinearSystem(size: 3, matrix: [0, 2, 1,
                                                    1, 1, 0,
                                                    2, 0, 3])
        // b = A·(1, 2, 3).
        let x = try #require(system.solve([7, 3, 11]))
        #expect(isClose(Vector3(x[0], x[1], x[2]), Vector3(1, 2, 3), tolerance: 1e-12))
        let diagonal = try #require(system.inverseDiagonal())
        // det = 0·3 − 2·(3 − 0) + 1·(0 − 2) = −8; (A⁻¹)₀₀ = (1·3 − 0·0)/−8, (A⁻¹)₁₁ = (0·3 − 1·2)/−8, (A⁻¹)₂₂ = (0·1 − 2·1)/−8.
        #expect(isClose(diagonal[0], -3.0 / 8, tolerance: 1e-12))
        #expect(isClose(diagonal[1], 2.0 / 8, tolerance: 1e-12))
        #expect(isClose(diagonal[2], 2.0 / 8, tolerance: 1e-12))
    }

    @Test("a singular system has no solution rather than garbage")
    func singular() {
        let system = LinearSystem(size: 2, matrix: [1, 2, 2, 4])
        #expect(system.solve([1, 2]) == nil)
    }
}
