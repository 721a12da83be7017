import Glibc

/// A second-order Butterworth low-pass for vectors and matrices (component-wise), discretised
/// per step (bilinear transform) so irregular sample intervals are handled. As in VQF, a time
/// constant τ sets the cut-off at f_c = √2 / (2π τ). Direct form II transposed; the state is
/// plain data so it can be saved with the estimator's. Each step's ``ButterworthCoefficients``
/// come from the caller, so filters sharing τ and the interval compute them once.
public struct ButterworthLowPass<Value: LowPassFilterable>: Sendable, Hashable, Codable {
    /// Filter memory.
    public private(set) var z1 = Value.zero
    public private(set) var z2 = Value.zero

    /// The filter at rest on zero.
    public init() {}

    /// Starts the filter at rest on `value` (its output is `value` until the input changes).
    public mutating func reset(to value: Value, tau: Double) {
        let c = ButterworthCoefficients(tau: tau, dt: 0.01)
        z1 = value * (1 - c.b0)
        z2 = value * (c.b2 - c.a2)
    }

    /// Filters one input taken at the interval `c` was computed for.
    public mutating func step(_ x: Value, _ c: ButterworthCoefficients) -> Value {
        let y = x * c.b0 + z1
        z1 = x * c.b1 - y * c.a1 + z2
        z2 = x * c.b2 - y * c.a2
        return y
    }
}

/// The coefficients of a ``ButterworthLowPass`` step of `dt` seconds with time constant `tau`.
public struct ButterworthCoefficients: Sendable, Hashable {
    let b0, b1, b2, a1, a2: Double

    public init(tau: Double, dt: Double) {
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        // Keep the cut-off below Nyquist for very long steps.
        let k = tan(.pi * min(fc * dt, 0.49))
        let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
    }
}

/// What a ``ButterworthLowPass`` filters: values that add and scale component by component.
public protocol LowPassFilterable: Sendable, Hashable, Codable {
    static var zero: Self { get }
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, s: Double) -> Self
}

extension Vector3: LowPassFilterable {}
extension Matrix3: LowPassFilterable {}
