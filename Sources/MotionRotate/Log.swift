import FoundationEssentials
import Glibc
import MotionCore
import MotionToolSupport

/// Log lines on standard error, which a systemd unit sends to the journal; there each line
/// carries its syslog priority as a `<N>` prefix (journald reads it; `JOURNAL_STREAM` tells
/// that standard error is the journal).
enum Log {
    private static let toJournal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil

    static func info(_ message: String) { write(message, priority: 6) }
    static func warning(_ message: String) { write(message, priority: 4) }

    private static func write(_ message: String, priority: Int) {
        let line = (toJournal ? "<\(priority)>" : "") + message + "\n"
        Console.write(line, to: STDERR_FILENO)
    }

    /// A time in seconds for log lines, to the millisecond.
    static func seconds(_ time: Double) -> String { DecimalText.fixed(time, decimals: 3) + " s" }
}
