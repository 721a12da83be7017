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

    /// As ``parse(_:)``, from an attribute's bytes as read (up to a NUL, as libiio's own writes
    /// leave one). An integer — what a `_raw` attribute holds — is read from the bytes without
    /// making a String (a resting device is read a few times a second, for hours); anything else
    /// goes through ``parse(_:)``.
    public static func parse(bytes: some Collection<UInt8>) -> Double? {
        let text = bytes.prefix(while: { $0 != 0 }).drop(while: \.isASCIIWhitespace)
        var value: Int64 = 0
        var digits = 0
        var negative = false
        var rest = text[...]
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            rest = rest.dropFirst()
        }
        for byte in rest {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 18 else { break }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        // Digits up to 18 are exact in Int64 and rounded once by Double(_:), as strtod rounds them.
        if digits > 0, rest.dropFirst(digits).allSatisfy(\.isASCIIWhitespace) {
            return negative ? (value == 0 ? -0.0 : -Double(value)) : Double(value)
        }
        return parse(String(decoding: text, as: UTF8.self))
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
