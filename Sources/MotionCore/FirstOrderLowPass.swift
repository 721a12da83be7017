import Glibc

/// A first-order low-pass with a time constant, stepped by sample timestamps: each step moves
/// the value toward the input by `1 − exp(−Δt/τ)`, so it means the same at any rate. The first
/// sample, or one after a gap longer than `maximumGap`, starts it afresh; a repeated or earlier
/// time is ignored. Used for gravity without a gyroscope and for the slap and tap high-passes
/// (input minus the value before the step).
public struct FirstOrderLowPass<Value: LowPassFilterable>: Sendable, Hashable, Codable {
    /// Time constant, s.
    public var tau: Double
    /// A longer gap between samples restarts the filter, s.
    public var maximumGap: Double
    /// The filtered value; nil before the first sample.
    public private(set) var value: Value?
    private var last: Double?

    public init(tau: Double, maximumGap: Double = .infinity) {
        self.tau = tau
        self.maximumGap = maximumGap
    }

    /// Steps the filter with `x` at `time`.
    public mutating func update(_ x: Value, at time: Double) {
        guard let value, let last, time - last <= maximumGap else {
            (value, last) = (x, time)
            return
        }
        guard time > last else { return }
        self.value = value + (x - value) * (1 - exp(-(time - last) / tau))
        self.last = time
    }
}

extension Double: LowPassFilterable {
    public static var zero: Double { 0 }
}
