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

    /// A scale over `lower...upper`, widened to round ticks unless `exact`.
    init(_ lower: Double, _ upper: Double, pixels from: Double, _ to: Double, step: Double? = nil, exact: Bool = false) {
        let (low, high) = upper > lower ? (lower, upper) : (lower - 1, lower + 1)
        let step = step ?? Self.roundStep((high - low) / 5)
        self.lower = exact ? low : (low / step).rounded(.down) * step
        self.upper = exact ? high : (high / step).rounded(.up) * step
        self.from = from
        self.to = to
        self.step = step
    }

    /// The pixel of `value`.
    func pixel(_ value: Double) -> Double {
        from + (value - lower) / (upper - lower) * (to - from)
    }

    /// The tick values within the range.
    var ticks: [Double] {
        let first = (lower / step - 1e-9).rounded(.up)
        return stride(from: first * step, through: upper + step * 1e-9, by: step).map { abs($0) < step * 1e-9 ? 0 : $0 }
    }

    /// A tick's label, with as many decimals as the step needs.
    func label(_ value: Double) -> String {
        DecimalText.fixed(value, decimals: max(0, Int((-log10(step)).rounded(.up))))
    }

    /// The round number (1, 2 or 5 × 10ⁿ) nearest above `rough`.
    private static func roundStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let power = pow(10, floor(log10(rough)))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough * 0.999 }!
    }
}
