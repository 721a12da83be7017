/// The protocol's JSON reader: exactly the RFC 8259 grammar, over the bytes of one line, with
/// the few limits docs/PROTOCOL.md §1 states. Both directions use it (the daemon for requests,
/// clients for the daemon's messages), so what one side may send the other always reads.
///
/// - Whitespace is space, tab, line feed and carriage return only; a byte-order mark is not
///   JSON whitespace and is refused.
/// - No trailing commas, no comments, no single quotes, no `NaN` or `Infinity`, no leading
///   zeros or `+` on numbers; nothing but whitespace after the value.
/// - A key given twice in one object is refused (naming it): a reader that keeps the first or
///   the last value would see a different request than one that checks every value.
/// - Text is UTF-8; invalid UTF-8 and unescaped control characters in strings are refused.
///   A `\u` escape of a lone surrogate (not part of a pair) is read as U+FFFD, so a string no
///   reader looks at never makes a line unreadable.
/// - A number must fit a Double: one beyond ±1.8e308 is refused (one closer to zero than the
///   smallest Double reads as 0).
/// - Arrays and objects nest at most ``maximumDepth`` deep.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted (the protocol's own messages nest 4
    /// deep); deeper input is refused instead of exhausting the stack.
    static let maximumDepth = 64

    /// Why a text is not JSON, and the byte (from 0) where that was found.
    struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "at byte \(offset + 1): \(reason)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The one JSON value `text` holds.
    static func parse(_ text: some Collection<UInt8>) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError>
        if let done = text.withContiguousStorageIfAvailable({ Self.parse(buffer: $0) }) {
            result = done
        } else {
            result = Array(text).withUnsafeBufferPointer { Self.parse(buffer: $0) }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, SyntaxError> {
        var parser = JSONParser(buffer)
        do throws(SyntaxError) {
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw SyntaxError(offset: 0, reason: "a byte-order mark is not JSON whitespace")
            }
            parser.skipWhitespace()
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected \(parser.describeCurrent()) after the value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    // MARK: Values

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("expected a value, got the end of the line") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("expected a value, got \(describeCurrent())")
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key in quotes, got \(describeCurrent())")
            }
            let keyStart = index
            let key = try string()
            guard members[key] == nil else {
                throw SyntaxError(offset: keyStart, reason: "duplicate key \"\(key)\"")
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after key \"\(key)\", got \(describeCurrent())") }
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object, got \(describeCurrent())") }
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array, got \(describeCurrent())") }
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("arrays and objects nested more than \(Self.maximumDepth) deep") }
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<index + count]) else {
            throw error("expected a value, got \(describeCurrent())")
        }
        index += count
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a Double.
    private mutating func number() throws(SyntaxError) -> Double {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number has no leading zeros") }
        } else if digits() == 0 {
            throw error("expected a digit, got \(describeCurrent())")
        }
        if consume(UInt8(ascii: ".")), digits() == 0 { throw error("expected a digit after '.', got \(describeCurrent())") }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            if digits() == 0 { throw error("expected a digit in the exponent, got \(describeCurrent())") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw SyntaxError(offset: start, reason: "number \(text) is out of range (beyond ±1.8e308)")
        }
        return number
    }

    /// Skips digits; how many there were.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index - start
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Strings

    private mutating func string() throws(SyntaxError) -> String {
        let start = index
        index += 1
        // Fast path: no escapes, the bytes are the string.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let raw = UnsafeBufferPointer(rebasing: bytes[index..<end])
            guard let text = String(validating: raw, as: UTF8.self) else { throw SyntaxError(offset: start, reason: "a string is not valid UTF-8") }
            index = end + 1
            return text
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[index..<end])
        index = end
        while true {
            guard index < bytes.count else { throw SyntaxError(offset: start, reason: "a string is not closed before the end of the line") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw error("a control character (0x\(String(byte, radix: 16))) in a string must be escaped") }
            if byte != UInt8(ascii: "\\") {
                scratch.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw SyntaxError(offset: start, reason: "a string is not closed before the end of the line") }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"): append(try unicodeEscape())
            default:
                index -= 1
                throw error("unknown escape in a string: a backslash before \(describeCurrent())")
            }
        }
        guard let text = String(validating: scratch, as: UTF8.self) else { throw SyntaxError(offset: start, reason: "a string is not valid UTF-8") }
        return text
    }

    /// The scalar of a `\uXXXX` escape (after the `u`), reading the second half of a surrogate
    /// pair when one follows; a lone surrogate is U+FFFD.
    private mutating func unicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
        let unit = try hex4()
        switch unit {
        case 0xD800...0xDBFF:
            if bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                let saved = index
                index += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
                }
                index = saved   // not a pair: the next escape stands on its own
            }
            return "\u{FFFD}"
        case 0xDC00...0xDFFF:
            return "\u{FFFD}"
        default:
            return Unicode.Scalar(unit)!
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("expected four hex digits after '\\u'") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after '\\u', got \(describeCurrent())")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { scratch.append($0) }
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private func error(_ reason: String) -> SyntaxError {
        SyntaxError(offset: index, reason: reason)
    }

    /// The byte at the current position, as a person reads it.
    private func describeCurrent() -> String {
        guard index < bytes.count else { return "the end of the line" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
