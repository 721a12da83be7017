import Glibc

/// A small deterministic pseudo-random generator (SplitMix64) with Gaussian draws,
/// so simulated data is identical on every run and every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in (0, 1].
    public mutating func unit() -> Double {
        (Double(next() >> 11) + 1) / Double(1 << 53)
    }

    /// A normally distributed value (Box–Muller).
    public mutating func gaussian(sigma: Double) -> Double {
        sigma * (-2 * log(unit())).squareRoot() * cos(2 * Double.pi * unit())
    }

    /// Three independent normally distributed components.
    public mutating func gaussianVector(sigma: Double) -> Vector3 {
        Vector3(gaussian(sigma: sigma), gaussian(sigma: sigma), gaussian(sigma: sigma))
    }
}
