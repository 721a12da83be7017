import MotionCore
import MotionProtocol
import TOMLKit

/// One table of a configuration file, read key by key with errors a person can act on: each
/// names the file, the line and the key path (`socket.mode`, `mount-matrix[1].kind`), and says
/// what was expected and what was found.
///
/// A table may hold only the keys it is opened with: any other is an error, reported before any
/// value is read.
struct ConfigurationTable {
    private let table: TOMLTable
    /// The table's key path as ``TOMLKeyLines`` knows it.
    private let path: [String]
    /// The table's key path as errors show it; empty for the top level.
    private let name: String
    private let file: String
    private let lines: TOMLKeyLines

    /// The document's top-level table, which may hold only `known` keys.
    init(top table: TOMLTable, file: String, lines: TOMLKeyLines, known: [String]) throws(ConfigurationError) {
        try self.init(table, path: [], name: "", file: file, lines: lines, known: known)
    }

    private init(_ table: TOMLTable, path: [String], name: String, file: String, lines: TOMLKeyLines, known: [String]) throws(ConfigurationError) {
        self.table = table
        self.path = path
        self.name = name
        self.file = file
        self.lines = lines
        let unknown = table.keys.filter { !known.contains($0) }
        if let first = unknown.min(by: { (line(of: $0) ?? .max) < (line(of: $1) ?? .max) }) {
            let value = table[first]
            let what = value?.type == .table ? "unknown table"
                : value?.array.map({ !$0.isEmpty && $0.allSatisfy { $0.type == .table } }) == true ? "unknown array of tables" : "unknown key"
            let place = name.isEmpty ? "the top level" : name
            throw error(first, "\(what); \(place) has \(Self.list(known.sorted(), last: "and"))")
        }
    }

    /// An error about `key` of this table, on the line it is written (or its table's, when it
    /// is not written on a line of its own).
    func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: line(of: key), key: name.isEmpty ? key : "\(name).\(key)", message: message)
    }

    /// A string, or nil when `key` is absent; `expected` describes it for a value of another type.
    func string(_ key: String, expected: String) throws(ConfigurationError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = try text(of: value, key, expected: expected) else {
            throw error(key, "expected \(expected), got \(Self.describe(value))")
        }
        return text
    }

    func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        try value(key, expected: "true or false") { $0.bool }
    }

    /// A finite number, written as an integer or a float.
    func number(_ key: String) throws(ConfigurationError) -> Double? {
        guard let number = try value(key, expected: "a number", { $0.double ?? $0.int.map(Double.init) }) else { return nil }
        guard number.isFinite else { throw error(key, "expected a finite number, got \(DecimalText.shortest(number))") }
        return number
    }

    /// One of `choices`, written as its raw value.
    func choice<Choice: RawRepresentable>(_ key: String, among choices: [Choice]) throws(ConfigurationError) -> Choice? where Choice.RawValue == String {
        let expected = Self.list(choices.map(\.rawValue), last: "or")
        guard let text = try string(key, expected: expected) else { return nil }
        guard let choice = choices.first(where: { $0.rawValue == text }) else { throw error(key, "expected \(expected), got \"\(text)\"") }
        return choice
    }

    /// An absolute path.
    func path(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key, expected: "an absolute path") else { return nil }
        guard text.hasPrefix("/") else { throw error(key, "expected an absolute path, got \"\(text)\"") }
        return text
    }

    /// A group name, which must exist on this system.
    func group(_ key: String) throws(ConfigurationError) -> SystemGroup? {
        guard let text = try string(key, expected: "a group name") else { return nil }
        guard !text.isEmpty else { throw error(key, "expected a group name, got an empty string") }
        guard let group = SystemGroup.named(text) else {
            throw error(key, "no group \"\(text)\" on this system (create it, e.g. with groupadd or a sysusers.d entry)")
        }
        return group
    }

    /// An array of `choices`.
    func choices<Choice: RawRepresentable>(_ key: String, among choices: [Choice]) throws(ConfigurationError) -> [Choice]? where Choice.RawValue == String {
        let expected = Self.list(choices.map(\.rawValue), last: "or")
        guard let array = try value(key, expected: "an array of \(expected)", { $0.array }) else { return nil }
        var result: [Choice] = []
        for element in array {
            guard let text = try text(of: element, key, expected: expected), let choice = choices.first(where: { $0.rawValue == text }) else {
                throw error(key, "expected \(expected), got \(element.string.map { "\"\($0)\"" } ?? Self.describe(element))")
            }
            result.append(choice)
        }
        return result
    }

    /// Whether the table names `key`.
    func contains(_ key: String) -> Bool { table.contains(key: key) }

    /// A nested table, which may hold only `known` keys.
    func table(_ key: String, known: [String]) throws(ConfigurationError) -> ConfigurationTable? {
        guard let nested = try value(key, expected: "a table", { $0.table }) else { return nil }
        return try ConfigurationTable(nested, path: path + [key], name: name.isEmpty ? key : "\(name).\(key)", file: file, lines: lines, known: known)
    }

    /// An array of tables (`[[key]]`), each of which may hold only `known` keys.
    func tables(_ key: String, known: [String]) throws(ConfigurationError) -> [ConfigurationTable]? {
        guard let array = try value(key, expected: "an array of tables", { $0.array }) else { return nil }
        var result: [ConfigurationTable] = []
        for (index, element) in array.enumerated() {
            let elementName = "\(name.isEmpty ? key : "\(name).\(key)")[\(index)]"
            guard let nested = element.table else {
                throw ConfigurationError(file: file, line: lines.line(of: path + [key]), key: elementName,
                                         message: "expected a table, got \(Self.describe(element))")
            }
            result.append(try ConfigurationTable(nested, path: path + [key, String(index)], name: elementName, file: file, lines: lines, known: known))
        }
        return result
    }

    private func value<Value>(_ key: String, expected: String, _ read: (any TOMLValueConvertible) -> Value?) throws(ConfigurationError) -> Value? {
        guard let value = table[key] else { return nil }
        guard let read = read(value) else { throw error(key, "expected \(expected), got \(Self.describe(value))") }
        return read
    }

    /// The text of a string value of `key`, nil for a value of another type. TOMLKit hands a
    /// string over as a C string, cut at its first NUL: `"on\u0000garbage"` would read as "on".
    /// toml++ writes the value as JSON with the NUL as an escape, which tells.
    private func text(of value: any TOMLValueConvertible, _ key: String, expected: String) throws(ConfigurationError) -> String? {
        guard let text = value.string else { return nil }
        let alone = TOMLTable()
        alone["value"] = value
        if case .object(let fields)? = try? JSONValue.parse(Array(alone.convert(to: .json).utf8)),
           case .string(let whole)? = fields["value"], whole.unicodeScalars.contains("\0") {
            throw error(key, "expected \(expected), got a string with a NUL character (\\u0000) in it")
        }
        return text
    }

    private func line(of key: String) -> Int? {
        lines.line(of: path + [key])
    }

    /// What kind of value `value` is, for "expected …, got …".
    private static func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .table: return "a table"
        case .array: return "an array"
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "true or false"
        case .date: return "a date"
        case .time: return "a time"
        case .dateTime: return "a date-time"
        }
    }

    /// `a, b or c`.
    private static func list(_ items: [String], last: String) -> String {
        guard items.count > 1 else { return items.joined() }
        return items.dropLast().joined(separator: ", ") + " \(last) " + items[items.count - 1]
    }
}
