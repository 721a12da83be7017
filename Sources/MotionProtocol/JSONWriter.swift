import MotionCore

/// Builds one JSON object as text, field by field, in the order written: the fast path for
/// the daemon's messages (each is encoded once and sent to every subscriber). Keys are written
/// as given (they are this protocol's identifiers); string values are escaped; non-finite
/// numbers, which JSON cannot carry, become `null`.
public struct JSONWriter: Sendable {
    private var text = "{"
    private var empty = true

    public init() {}

    /// The object, closed.
    public var finished: String { text + "}" }

    private mutating func key(_ key: String) {
        if empty { empty = false } else { text += "," }
        text += "\""
        text += key
        text += "\":"
    }

    public mutating func field(_ name: String, _ value: String) {
        key(name)
        text += Self.quoted(value)
    }

    public mutating func field(_ name: String, _ value: Double) {
        key(name)
        text += Self.number(value)
    }

    /// An optional integer: `null` when absent (reply ids).
    public mutating func field(_ name: String, _ value: Int?) {
        key(name)
        text += value.map(String.init) ?? "null"
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// A vector as `{"x":…,"y":…,"z":…}`.
    public mutating func field(_ name: String, _ value: Vector3) {
        key(name)
        text += "{\"x\":\(Self.number(value.x)),\"y\":\(Self.number(value.y)),\"z\":\(Self.number(value.z))}"
    }

    /// A value that is already JSON text (a nested object or array).
    public mutating func raw(_ name: String, _ json: String) {
        key(name)
        text += json
    }

    /// JSON number text; NaN and infinities become `null`.
    public static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON array of strings.
    public static func array(_ values: [String]) -> String {
        "[" + values.map(quoted).joined(separator: ",") + "]"
    }
}
