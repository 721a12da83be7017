import Dispatch
import Glibc
import MotionIIO
import MotionProtocol
import MotionSync

/// Writes the daemon's own subscriptions (`--print-samples`, `--print-motion`) to standard
/// output, one line per message: JSON lines in the protocol's shapes or text for people. It
/// writes on its own queue, so a slow terminal never holds up the pipeline. After `count`
/// sample lines (availability lines do not count) or a closed output it calls `finish` once.
final class Printer: LocalSubscriber {
    private let json: Bool
    private let count: Int?
    private let countedLines: String
    private let finish: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "motiond.stdout")
    /// Lines printed and whether output ended; only `queue` uses them (the lock costs nothing
    /// uncontended and lets the compiler check that).
    private let progress = Lock((printed: 0, done: false))

    init(json: Bool, count: Int?, countedLines: String, finish: @escaping @Sendable (String) -> Void) {
        self.json = json
        self.count = count
        self.countedLines = countedLines
        self.finish = finish
    }

    /// The pipeline's messages (on its queue): written on the printer's own queue, encoded there.
    func deliver(_ messages: [ServerMessage]) {
        queue.async { [self] in
            for message in messages where !progress.withLock({ $0.done }) {
                let line = json ? message.line + "\n" : message.text.map { $0 + "\n" }
                guard let line else { continue }
                guard Self.writeStandardOutput(line) else {
                    end("standard output closed")
                    return
                }
                guard case .sample = OutgoingMessage.delivery(of: message) else { continue }
                let printed = progress.withLock { progress in
                    progress.printed += 1
                    return progress.printed
                }
                if let count, printed >= count { end("printed \(count) \(countedLines)") }
            }
        }
    }

    /// The sample lines written so far, and what they are (`samples`, `device motion lines`).
    var printedLines: String {
        queue.sync { "\(progress.withLock { $0.printed }) \(countedLines)" }
    }

    /// Waits until every line handed over is written.
    func drain() {
        queue.sync {}
    }

    /// Writes all of `text` to file descriptor 1; false once the output is gone (EPIPE).
    private static func writeStandardOutput(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { writeAll($0, to: STDOUT_FILENO) } == 0
    }

    private func end(_ why: String) {
        progress.withLock { $0.done = true }
        finish(why)
    }
}
