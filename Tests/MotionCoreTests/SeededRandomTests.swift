import Testing
import MotionCore

@Suite("SeededRandom")
struct SeededRandomTests {
    @Test("matches the SplitMix64 reference outputs for seed 0")
    func referenceVector() {
        // Reference SplitMix64 (Vigna): seed 0 yields
        // 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
        var r = SeededRandom(seed: 0)
        #expect(r.next() == 0xE220_A839_7B1D_CDAF)
        #expect(r.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(r.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("same seed gives the same sequence; different seeds differ")
    func determinism() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42), c = SeededRandom(seed: 43)
        let sa = (0..<100).map { _ in a.next() }
        let sb = (0..<100).map { _ in b.next() }
        let sc = (0..<100).map { _ in c.next() }
        #expect(sa == sb)
        #expect(sa != sc)

        var g1 = SeededRandom(seed: 7), g2 = SeededRandom(seed: 7)
        let ga = (0..<100).map { _ in g1.gaussian(sigma: 1) }
        let gb = (0..<100).map { _ in g2.gaussian(sigma: 1) }
        #expect(ga == gb)

        var r1 = SeededRandom(seed: 9), r2 = SeededRandom(seed: 9)
        #expect((0..<50).map { _ in Int.random(in: 0..<1000, using: &r1) }
                == (0..<50).map { _ in Int.random(in: 0..<1000, using: &r2) })
    }

    @Test("unit() lies in (0, 1] with mean ½")
    func unitRange() {
        var r = SeededRandom(seed: 123)
        let n = 20_000
        let values = (0..<n).map { _ in r.unit() }
        #expect(values.allSatisfy { $0 > 0 && $0 <= 1 })
        // Uniform(0,1): σ = 1/√12 ≈ 0.2887; standard error of the mean = 0.2887/√20000 ≈ 0.00204.
        // Tolerance 5 × 0.00204 ≈ 0.0102.
        let mean = values.reduce(0, +) / Double(n)
        #expect(abs(mean - 0.5) < 0.0102, "mean \(mean)")
    }

    @Test("gaussian draws have mean 0 and standard deviation sigma")
    func gaussianStatistics() {
        var r = SeededRandom(seed: 2024)
        let n = 20_000
        let sigma = 2.0
        let values = (0..<n).map { _ in r.gaussian(sigma: sigma) }
        let mean = values.reduce(0, +) / Double(n)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n - 1)
        let std = variance.squareRoot()
        // Standard error of the mean: σ/√n = 2/√20000 ≈ 0.01414; tolerance 5 SE ≈ 0.0707.
        #expect(abs(mean) < 0.0707, "mean \(mean)")
        // Standard error of the sample std for a normal: σ/√(2n) = 2/√40000 = 0.01; tolerance 5 SE = 0.05.
        #expect(abs(std - sigma) < 0.05, "std \(std)")
        // About 68.27 % within ±1σ: binomial SE = √(0.6827·0.3173/20000) ≈ 0.00329; tolerance 5 SE ≈ 0.0165.
        let inside = Double(values.filter { abs($0) < sigma }.count) / Double(n)
        #expect(abs(inside - 0.6827) < 0.0165, "fraction within 1σ \(inside)")
        #expect(values.allSatisfy { $0.isFinite })
    }

    @Test("gaussianVector components each have mean 0 and std sigma")
    func gaussianVectorStatistics() {
        var r = SeededRandom(seed: 5)
        let n = 20_000
        let sigma = 0.5
        let vectors = (0..<n).map { _ in r.gaussianVector(sigma: sigma) }
        for axis in 0..<3 {
            let values = vectors.map { $0[axis] }
            let mean = values.reduce(0, +) / Double(n)
            let std = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n - 1)).squareRoot()
            // SE of the mean = 0.5/√20000 ≈ 0.00354 → 5 SE ≈ 0.0177; SE of std = 0.5/√40000 = 0.0025 → 5 SE = 0.0125.
            #expect(abs(mean) < 0.0177, "axis \(axis) mean \(mean)")
            #expect(abs(std - sigma) < 0.0125, "axis \(axis) std \(std)")
        }
        // x and y of the same draw are uncorrelated: SE of the correlation ≈ 1/√n ≈ 0.00707, 5 SE ≈ 0.0354.
        let sxy = vectors.reduce(0) { $0 + $1.x * $1.y } / Double(n)
        #expect(abs(sxy / (sigma * sigma)) < 0.0354)
    }

    @Test("zero sigma gives zero")
    func zeroSigma() {
        var r = SeededRandom(seed: 1)
        #expect(r.gaussian(sigma: 0) == 0)
        #expect(r.gaussianVector(sigma: 0) == .zero)
    }
}
