import ArgumentParser

/// Checks a command-line option that is a number of seconds: NaN, infinity and negative
/// values are refused with a usage error (exit 64) naming the option.
enum TimeOption {
    /// `value` of `option` (e.g. `--wait`) must be finite and positive, or zero when `allowZero`.
    static func check(_ value: Double, _ option: String, allowZero: Bool = false) throws(ValidationError) {
        guard value.isFinite, value > 0 || (allowZero && value == 0) else {
            throw ValidationError("\(option) \(value): expected a finite \(allowZero ? "non-negative" : "positive") number of seconds")
        }
    }
}
