/// How deep arrays and inline tables nest in a TOML text, found by scanning it (strings and
/// comments skipped) before it is parsed: the TOML library recurses once per level, so a file
/// nested thousands deep would overflow the stack of the thread reading it (AddressSanitizer
/// found it with 10,000 levels). motiond's own settings nest at most three deep.
enum TOMLNesting {
    /// The deepest nesting accepted.
    static let limit = 32

    /// The line (from 1) where nesting first goes deeper than `limit`, or nil.
    static func firstExcess(in text: String, limit: Int = limit) -> Int? {
        enum Context { case value, comment, basic, literal, multilineBasic, multilineLiteral }
        let bytes = Array(text.utf8)
        let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        func tripled(_ byte: UInt8, at i: Int) -> Bool {
            i + 2 < bytes.count && bytes[i + 1] == byte && bytes[i + 2] == byte
        }
        var context = Context.value
        var depth = 0
        var line = 1
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == newline { line += 1 }
            switch context {
            case .value:
                switch byte {
                case UInt8(ascii: "#"): context = .comment
                case quote where tripled(quote, at: i): context = .multilineBasic; i += 2
                case quote: context = .basic
                case apostrophe where tripled(apostrophe, at: i): context = .multilineLiteral; i += 2
                case apostrophe: context = .literal
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > limit { return line }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
                default: break
                }
            case .comment:
                if byte == newline { context = .value }
            case .basic, .multilineBasic:
                if byte == UInt8(ascii: "\\") {
                    // The escaped byte is skipped (a line end after a backslash still counts).
                    if i + 1 < bytes.count, bytes[i + 1] == newline { line += 1 }
                    i += 1
                } else if context == .basic, byte == quote || byte == newline {
                    context = .value
                } else if context == .multilineBasic, byte == quote, tripled(quote, at: i) {
                    context = .value
                    i += 2
                }
            case .literal:
                if byte == apostrophe || byte == newline { context = .value }
            case .multilineLiteral:
                if byte == apostrophe, tripled(apostrophe, at: i) {
                    context = .value
                    i += 2
                }
            }
            i += 1
        }
        return nil
    }
}
