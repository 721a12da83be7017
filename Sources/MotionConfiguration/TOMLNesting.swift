/// How deep tables and arrays nest in a TOML text, found by scanning it (strings and comments
/// skipped) before it is parsed: the TOML library recurses once per level, so a file nested
/// thousands deep — brackets, braces or a dotted key like `a.a.a…` — would overflow the stack
/// of the thread reading it (AddressSanitizer found it). motiond's own settings nest at most
/// three deep.
enum TOMLNesting {
    /// The deepest nesting accepted.
    static let limit = 32

    /// The line (from 1) where nesting first goes deeper than `limit`, or nil. A level is an
    /// open array or table (`[`, `{`, a `[header]`) or a dot in a key.
    static func firstExcess(in text: String, limit: Int = limit) -> Int? {
        enum Context { case plain, comment, basic, literal, multilineBasic, multilineLiteral }
        let bytes = Array(text.utf8)
        let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        func tripled(_ byte: UInt8, at i: Int) -> Bool {
            i + 2 < bytes.count && bytes[i + 1] == byte && bytes[i + 2] == byte
        }
        var context = Context.plain
        /// The open brackets and braces.
        var open: [UInt8] = []
        /// Whether a key is being read (from a line's start, a `{` or a `,` in an inline
        /// table, to its `=`; or a table header), and the dots seen in it.
        var inKey = true
        var keyDots = 0
        var line = 1
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == newline { line += 1 }
            switch context {
            case .plain:
                switch byte {
                case UInt8(ascii: "#"): context = .comment
                case quote where tripled(quote, at: i): context = .multilineBasic; i += 2
                case quote: context = .basic
                case apostrophe where tripled(apostrophe, at: i): context = .multilineLiteral; i += 2
                case apostrophe: context = .literal
                case UInt8(ascii: "["):
                    // A header's brackets keep the key open; an array's start a value.
                    let header = inKey && (open.isEmpty || open.allSatisfy { $0 == UInt8(ascii: "[") } && keyDots == 0)
                    open.append(byte)
                    if !header { inKey = false }
                case UInt8(ascii: "{"):
                    open.append(byte)
                    inKey = true
                    keyDots = 0
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    _ = open.popLast()
                case UInt8(ascii: ","):
                    if open.last == UInt8(ascii: "{") { inKey = true; keyDots = 0 }
                case UInt8(ascii: "="):
                    inKey = false
                case UInt8(ascii: "."):
                    if inKey { keyDots += 1 }
                case newline:
                    if open.isEmpty { inKey = true; keyDots = 0 }
                default:
                    break
                }
                if open.count + keyDots > limit { return line }
            case .comment:
                if byte == newline {
                    context = .plain
                    if open.isEmpty { inKey = true; keyDots = 0 }
                }
            case .basic, .multilineBasic:
                if byte == UInt8(ascii: "\\") {
                    // The escaped byte is skipped (a line end after a backslash still counts).
                    if i + 1 < bytes.count, bytes[i + 1] == newline { line += 1 }
                    i += 1
                } else if context == .basic, byte == quote || byte == newline {
                    context = .plain
                } else if context == .multilineBasic, byte == quote, tripled(quote, at: i) {
                    context = .plain
                    i += 2
                }
            case .literal:
                if byte == apostrophe || byte == newline { context = .plain }
            case .multilineLiteral:
                if byte == apostrophe, tripled(apostrophe, at: i) {
                    context = .plain
                    i += 2
                }
            }
            i += 1
        }
        return nil
    }
}
