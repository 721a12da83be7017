import Foundation

/// A second-order Butterworth low-pass for 3-vectors, discretised per step (bilinear
/// transform) so irregular sample intervals are handled. As in VQF, a time constant τ sets the
/// cut-off at f_c = √2 / (2π τ). Direct form II transposed; the state is plain data so it can be
/// saved with the estimator's.
public struct ButterworthLowPass: Sendable, Hashable, Codable {
    private enum CodingKeys: String, CodingKey { case tau, z1, z2, primed }

    public static func == (a: Self, b: Self) -> Bool {
        a.tau == b.tau && a.z1 == b.z1 && a.z2 == b.z2 && a.primed == b.primed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tau)
        hasher.combine(z1)
        hasher.combine(z2)
        hasher.combine(primed)
    }

    public var tau: Double
    /// Filter memory (two vectors) and whether it holds anything yet.
    public private(set) var z1 = Vector3.zero
    public private(set) var z2 = Vector3.zero
    public private(set) var primed = false
    /// Coefficients of the last step, reused while the interval and τ stay the same.
    private var cached: (tau: Double, dt: Double, c: Coefficients)?

    typealias Coefficients = (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double)

    public init(tau: Double) {
        self.tau = tau
    }

    /// Starts the filter at rest on `value` (its output is `value` until the input changes).
    public mutating func reset(to value: Vector3) {
        let c = Self.coefficients(tau: tau, dt: 0.01)
        z1 = value * (1 - c.b0)
        z2 = value * (c.b2 - c.a2)
        primed = true
    }

    /// Filters one input taken `dt` seconds after the previous one.
    public mutating func step(_ x: Vector3, dt: Double) -> Vector3 {
        guard primed else {
            reset(to: x)
            return x
        }
        let c: Coefficients
        if let cached, cached.dt == dt, cached.tau == tau {
            c = cached.c
        } else {
            c = Self.coefficients(tau: tau, dt: dt)
            cached = (tau, dt, c)
        }
        let y = x * c.b0 + z1
        z1 = x * c.b1 - y * c.a1 + z2
        z2 = x * c.b2 - y * c.a2
        return y
    }

    static func coefficients(tau: Double, dt: Double) -> Coefficients {
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        // Keep the cut-off below Nyquist for very long steps.
        let k = tan(.pi * min(fc * dt, 0.49))
        let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        let b0 = k * k * norm
        return (b0, 2 * b0, b0, 2 * (k * k - 1) * norm, (1 - 2.0.squareRoot() * k + k * k) * norm)
    }
}
