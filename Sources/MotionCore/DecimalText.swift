/// The shortest decimal text of a number, as sysfs and mount matrices write them: integral
/// values without a fraction (`50`, `-1`), others as Swift prints them (`12.5`, `0.000598`).
public enum DecimalText {
    public static func shortest(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
