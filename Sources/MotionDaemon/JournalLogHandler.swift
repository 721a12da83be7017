import CSystemd
import Glibc
import Logging
import MotionSync

/// A swift-log backend that writes native systemd journal entries (`sd_journal_sendv`), so
/// every log line keeps its level, its source location and its metadata as fields that
/// `journalctl` can filter on.
///
/// Each entry carries:
/// - `MESSAGE`, the message (newlines included: libsystemd switches such a field to the
///   journal's binary encoding);
/// - `PRIORITY`, the syslog level: trace and debug 7, info 6, notice 5, warning 4, error 3,
///   critical 2;
/// - `SYSLOG_IDENTIFIER`, ``identifier`` (`motiond` by default);
/// - `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, where the log call is;
/// - one field per metadata key, named `MOTIOND_` + the key upper-cased with every character
///   outside `A-Z`, `0-9` and `_` replaced by `_` (so `["sensor": "gyroscope"]` becomes
///   `MOTIOND_SENSOR=gyroscope`, found by `journalctl MOTIOND_SENSOR=gyroscope`). Values are
///   their `description`, except arrays: an array gives the field once per element, as the
///   journal allows, so `["sensor": ["accelerometer", "gyroscope"]]` matches either name.
///
/// Metadata merges as in swift-log's `StreamLogHandler`: the handler's ``metadata``, then the
/// ``metadataProvider``'s, then the log call's, later ones winning; an error passed to the log
/// call adds `MOTIOND_ERROR_MESSAGE` and `MOTIOND_ERROR_TYPE`. Without a journal socket
/// libsystemd drops entries silently; an entry the journal refuses is written to standard error
/// instead, with the reason.
public struct JournalLogHandler: LogHandler {
    /// The `SYSLOG_IDENTIFIER` of every entry (what `journalctl -t` selects).
    public let identifier: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// The prefix of every metadata field name, which keeps them apart from the journal's own.
    static let metadataFieldPrefix = "MOTIOND_"
    /// journald rejects longer field names.
    static let maximumFieldNameLength = 64

    /// A handler writing entries as `identifier`, with `metadataProvider` (by default the one
    /// given to `LoggingSystem.bootstrap`).
    public init(identifier: String = "motiond", metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.identifier = identifier
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let entry = fields(for: event)
        let result = Self.send(entry)
        if result < 0 {
            let text = "\(identifier): the journal refused an entry (\(SystemError(result))): \(event.message)\n"
            _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        }
    }

    /// The journal fields of `event`, in order, as `sd_journal_sendv` receives them.
    func fields(for event: LogEvent) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", event.message.description),
            ("PRIORITY", String(Self.priority(event.level))),
            ("SYSLOG_IDENTIFIER", identifier),
            ("CODE_FILE", event.file),
            ("CODE_LINE", String(event.line)),
            ("CODE_FUNC", event.function),
        ]
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata { merged.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let name = Self.fieldName(metadataKey: key)
            for text in Self.values(value) { fields.append((name, text)) }
        }
        return fields
    }

    /// The syslog priority of a swift-log level.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The journal field name of a metadata key: `MOTIOND_` + the key upper-cased, characters
    /// outside `[A-Z0-9_]` replaced by `_`, cut to the journal's 64 characters.
    static func fieldName(metadataKey key: String) -> String {
        var name = metadataFieldPrefix
        for scalar in key.unicodeScalars {
            switch scalar {
            case "A"..."Z", "0"..."9", "_": name.unicodeScalars.append(scalar)
            case "a"..."z": name.unicodeScalars.append(Unicode.Scalar(scalar.value - 0x20)!)
            default: name.append("_")
            }
        }
        return String(name.prefix(maximumFieldNameLength))
    }

    /// The field values of one metadata value: its description, or one per element of an array.
    private static func values(_ value: Logger.Metadata.Value) -> [String] {
        if case .array(let elements) = value { return elements.flatMap(values) }
        return [value.description]
    }

    /// Sends one entry: all `KEY=value` fields in one buffer, an `iovec` per field. Returns
    /// `sd_journal_sendv`'s result (a negative errno on failure).
    private static func send(_ fields: [(name: String, value: String)]) -> Int32 {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for (name, value) in fields {
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: value.utf8)
            ends.append(bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            var start = 0
            let vectors = ends.map { end in
                defer { start = end }
                return iovec(iov_base: buffer.baseAddress! + start, iov_len: end - start)
            }
            return sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }
}
