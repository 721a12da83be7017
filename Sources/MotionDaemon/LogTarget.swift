import Glibc
import Logging

/// Where the daemon's log goes: native journal entries, or text lines on standard error.
public enum LogTarget: String, CaseIterable, Sendable {
    /// The journal when standard error is connected to it, as systemd tells a service through
    /// `JOURNAL_STREAM`; standard error otherwise.
    case auto
    /// Native journal entries with structured fields (``JournalLogHandler``).
    case journal
    /// Text lines on standard error (swift-log's `StreamLogHandler`).
    case stderr

    /// ``journal`` or ``stderr``: what this target means for this process.
    public var resolved: LogTarget {
        guard self == .auto else { return self }
        return Self.isJournalStream(getenv("JOURNAL_STREAM").map { String(cString: $0) }, descriptor: STDERR_FILENO) ? .journal : .stderr
    }

    /// Makes this target swift-log's backend, logging at `level` and above. Call once, before
    /// the first `Logger` is made.
    public func bootstrap(level: Logger.Level) {
        let target = resolved
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = switch target {
            case .journal: JournalLogHandler()
            case .auto, .stderr: StreamLogHandler.standardError(label: label)
            }
            handler.logLevel = level
            return handler
        }
    }

    /// Whether `journalStream`, a `JOURNAL_STREAM` value (`DEVICE:INODE`, in decimal), names
    /// the file open on `descriptor`. systemd sets it for a service whose standard output or
    /// error goes to the journal; when the service's stderr was redirected elsewhere, it no
    /// longer matches.
    static func isJournalStream(_ journalStream: String?, descriptor: Int32) -> Bool {
        guard let parts = journalStream?.split(separator: ":", omittingEmptySubsequences: false), parts.count == 2,
              let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
