import FoundationEssentials
import MotionCore

/// Locale-independent number parsing and printing for sysfs attribute text.
///
/// `Double(String)` never consults LC_NUMERIC, so a daemon started under a locale that uses
/// a decimal comma still reads `0.000598` correctly.
public enum SysfsNumber {
    /// Parses a decimal or integer attribute value; `nil` for anything else (or non-finite).
    public static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        // The kernel prints decimal only; `Double` alone would also take "0x10", "nan", "inf".
        guard trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }),
              let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// The shortest text that reads back as `value` (`50`, `12.5`, `0.00001`), as written to
    /// sysfs: plain digits, never an exponent (`1e-05`), which the kernel does not read.
    public static func format(_ value: Double) -> String {
        let shortest = DecimalText.shortest(value)
        guard shortest.contains("e") else { return shortest }
        for decimals in 1...24 {
            let plain = DecimalText.fixed(value, decimals: decimals)
            if Double(plain) == value { return plain }
        }
        return shortest
    }
}
