import Glibc
import MotionCore

/// A linear axis of a plot: maps a value range onto a pixel range and chooses tick values at
/// round steps (1, 2 or 5 × 10ⁿ), about five of them.
struct PlotScale {
    let lower: Double
    let upper: Double
    /// Pixels of `lower` and `upper` (upper may be the smaller number: y grows downwards).
    let from: Double
    let to: Double
    let step: Double

    /// A scale over `lower...upper`, widened to round ticks unless `exact`. Any finite bounds
    /// work, ±1e308 included: spans are taken in fifths or halves, which cannot overflow.
    init(_ lower: Double, _ upper: Double, pixels from: Double, _ to: Double, step: Double? = nil, exact: Bool = false) {
        let (low, high) = upper > lower ? (lower, upper) : Self.around(lower)
        let step = step ?? Self.roundStep(high / 5 - low / 5)
        // `value` moved out to a multiple of the step, unless that is beyond the finite range.
        func widened(_ value: Double, _ rule: FloatingPointRoundingRule) -> Double {
            let round = (value / step).rounded(rule) * step
            return exact || !round.isFinite ? value : round
        }
        self.lower = widened(low, .down)
        self.upper = widened(high, .up)
        self.from = from
        self.to = to
        self.step = step
    }

    /// The pixel of `value`.
    func pixel(_ value: Double) -> Double {
        from + (value / 2 - lower / 2) / (upper / 2 - lower / 2) * (to - from)
    }

    /// The most ticks an axis gets, whatever step it was given.
    static let maximumTicks = 50

    /// The tick values within the range, each computed from its index (a step too small to
    /// change a value at that magnitude could never step past it).
    var ticks: [Double] {
        let first = (lower / step - 1e-9).rounded(.up), last = (upper / step + 1e-9).rounded(.down)
        guard first <= last else { return [] }
        return (0...Int(min(last - first, Double(Self.maximumTicks - 1)))).map { index in
            let value = (first + Double(index)) * step
            return abs(value) < step * 1e-9 ? 0 : value
        }
    }

    /// A tick's label, with as many decimals as the step needs.
    func label(_ value: Double) -> String {
        DecimalText.fixed(value, decimals: max(0, Int((-log10(step)).rounded(.up))))
    }

    /// A range around the single value `value`: ±1, or ±10 % of it when that is more, within
    /// the finite numbers.
    private static func around(_ value: Double) -> (Double, Double) {
        let margin = max(1, abs(value) / 10)
        return (max(value - margin, -.greatestFiniteMagnitude), min(value + margin, .greatestFiniteMagnitude))
    }

    /// The round number (1, 2 or 5 × 10ⁿ) nearest above `rough`.
    private static func roundStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let power = pow(10, floor(log10(rough)))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough * 0.999 }!
    }
}
