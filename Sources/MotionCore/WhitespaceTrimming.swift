extension StringProtocol {
    /// The text without leading and trailing whitespace: spaces and tabs, and line breaks too
    /// unless `newlines` is false. (Foundation's `trimmingCharacters(in:)` without Foundation,
    /// which the daemon does not link.) ASCII text (sysfs values, configuration lines) is
    /// trimmed byte by byte, with the same result as by `Character`, without Unicode property
    /// lookups: a device at rest has three values trimmed a few times a second.
    @inlinable // specialized where it is called: a generic call costs more than the trimming
    public func trimmingWhitespace(newlines: Bool = true) -> String {
        if utf8.allSatisfy({ $0 < 0x80 }) {
            let trim = { (byte: UInt8) in byte.isASCIIWhitespace && (newlines || !(0x0A...0x0D).contains(byte)) }
            let bytes = Array(utf8)
            guard let first = bytes.firstIndex(where: { !trim($0) }), let last = bytes.lastIndex(where: { !trim($0) }) else { return "" }
            return String(decoding: bytes[first...last], as: UTF8.self)
        }
        let trim: (Character) -> Bool = { $0.isWhitespace && (newlines || !$0.isNewline) }
        guard let first = firstIndex(where: { !trim($0) }), let last = lastIndex(where: { !trim($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension UInt8 {
    /// Whether this byte is Unicode's White_Space in ASCII: tab, the line breaks 0A–0D, space.
    @inlinable
    public var isASCIIWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
}
