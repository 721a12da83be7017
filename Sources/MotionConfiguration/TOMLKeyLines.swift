import MotionCore

/// The line each key of a TOML document is written on, found by scanning its text: TOMLKit
/// reports a position for syntax errors only, and an error about a value must still name the
/// line a person has to edit.
///
/// A key path is the table path plus the key: `["socket", "mode"]` for `mode` under
/// `[socket]` or for `socket.mode` at the top; the n-th `[[mount-matrix]]` (from 0) is
/// `["mount-matrix", "n"]`. Keys inside inline tables and inline arrays are not scanned: they
/// resolve to the line of the key that holds them.
struct TOMLKeyLines {
    /// Every table header and key/value line: its key path, that path as errors show it
    /// (`mount-matrix[0].kind`) and its line number (from 1).
    private var entries: [(path: [String], name: String, line: Int)] = []

    init(_ text: String) {
        var table: (path: [String], name: String) = ([], "")
        var arrayCounts: [[String]: Int] = [:]
        var inMultilineString = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.trimmingWhitespace()
            // A line that opens or closes a multi-line string holds an odd number of
            // delimiters; the lines inside one are not keys.
            let delimiters = line.ranges(of: "\"\"\"").count + line.ranges(of: "'''").count
            defer { if delimiters % 2 == 1 { inMultilineString.toggle() } }
            if inMultilineString || line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[[") {
                guard let close = line.firstRange(of: "]]"), Self.endsHeader(line[close.upperBound...]),
                      let keys = Self.keys(line[line.index(line.startIndex, offsetBy: 2)..<close.lowerBound]) else { continue }
                let count = arrayCounts[keys, default: 0]
                arrayCounts[keys] = count + 1
                table = (keys + [String(count)], keys.joined(separator: ".") + "[\(count)]")
                entries.append((table.path, table.name, index + 1))
            } else if line.hasPrefix("[") {
                guard let close = line.firstIndex(of: "]"), Self.endsHeader(line[line.index(after: close)...]),
                      let keys = Self.keys(line[line.index(after: line.startIndex)..<close]) else { continue }
                table = (keys, keys.joined(separator: "."))
                entries.append((table.path, table.name, index + 1))
            } else if let equals = Self.unquotedEquals(in: line), let keys = Self.keys(line[..<equals]) {
                entries.append((table.path + keys, ([table.name] + keys).filter { !$0.isEmpty }.joined(separator: "."), index + 1))
            }
        }
    }

    /// The line `path` is written on. A table no line names itself, made by a dotted key or a
    /// header below it (`a.b.c = 1`, `[a.b]`) or by an array of tables (`[[a]]`), is on the
    /// first line that makes it; a key not written on a line of its own (inside an inline
    /// table, or missing) on the line of its nearest written ancestor; nil when none is.
    func line(of path: [String]) -> Int? {
        if let entry = entries.first(where: { $0.path == path }) { return entry.line }
        if !path.isEmpty, let entry = entries.first(where: { $0.path.starts(with: path) }) { return entry.line }
        var path = path
        while !path.isEmpty {
            if let entry = entries.first(where: { $0.path == path }) { return entry.line }
            path.removeLast()
        }
        return nil
    }

    /// The key path of the key or table header written on `line`, as errors show it.
    func name(atLine line: Int) -> String? {
        entries.first { $0.line == line }?.name
    }

    /// Whether what follows a `]` closes a table header line (rather than an array's element
    /// on a line of a multi-line array).
    private static func endsHeader(_ rest: Substring) -> Bool {
        let rest = rest.trimmingWhitespace()
        return rest.isEmpty || rest.hasPrefix("#")
    }

    /// A dotted key's parts, unquoted; nil when it is not a key.
    private static func keys(_ text: Substring) -> [String]? {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current.trimmingWhitespace())
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingWhitespace())
        return quote == nil && !parts.contains(where: \.isEmpty) ? parts : nil
    }

    /// The first `=` outside quotes: where a key/value line's key ends.
    private static func unquotedEquals(in line: String) -> String.Index? {
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "=" {
                return index
            }
        }
        return nil
    }
}
