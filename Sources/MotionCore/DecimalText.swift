/// Decimal text of numbers, without Foundation (which the daemon does not link).
public enum DecimalText {
    /// The shortest text, as sysfs and mount matrices write numbers: integral values without a
    /// fraction (`50`, `-1`), others as Swift prints them (`12.5`, `0.000598`).
    public static func shortest(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Fixed-point text like printf's `%W.Df` (`%+W.Df` with `plus`): `decimals` digits after
    /// the point, rounded half away from zero, right-aligned in `width` characters. A value
    /// that rounds to zero has no minus sign; values beyond ±9e18 fall back to ``shortest(_:)``.
    public static func fixed(_ value: Double, decimals: Int, width: Int = 0, plus: Bool = false) -> String {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        var text: String
        if value.isFinite, scaled < 9e18 {
            var digits = String(UInt64(scaled))
            if decimals > 0 {
                if digits.count <= decimals { digits = String(repeating: "0", count: decimals + 1 - digits.count) + digits }
                digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
            }
            text = (value < 0 && scaled > 0 ? "-" : plus ? "+" : "") + digits
        } else {
            text = (plus && value >= 0 ? "+" : "") + shortest(value)
        }
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
