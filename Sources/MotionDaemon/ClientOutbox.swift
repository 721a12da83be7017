import MotionProtocol
import MotionSync

/// The part of a client that two threads share: its bounded ``SendQueue``. The pipeline's
/// thread puts messages in (``post(_:)``), the server's queue takes them out for writing
/// (``takePending(now:)``) and says how much was written (``consume(_:)``). Everything is
/// behind one ``Lock``, and messages taken for writing stay in the queue, untouched, until they
/// are consumed, so what the server writes is always whole lines in order, however the
/// pipeline coalesces or drops meanwhile. Sendable as the compiler checks it: constants and a
/// ``Lock``.
final class ClientOutbox: Sendable {
    let id: ClientID

    private struct State {
        var queue = SendQueue()
        /// Whether the server has been asked to write (or waits for the socket to take more),
        /// so each client costs the server at most one pending task.
        var flushScheduled = false
        var closed = false
    }
    private let state = Lock(State())

    /// Messages taken for one write at most.
    static let writeBatch = 64

    init(id: ClientID) {
        self.id = id
    }

    /// Queues a message from any thread; true when the caller must have the server write this
    /// client (it was not scheduled yet). Discarded once closed.
    func post(_ message: OutgoingMessage) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.queue.enqueue(message)
            guard !state.flushScheduled else { return false }
            state.flushScheduled = true
            return true
        }
    }

    /// The next byte ranges to write (drop reports that are due queued first), held in the
    /// queue until ``consume(_:)``; none when the queue is empty, which ends the scheduled
    /// flush. `now` (seconds, monotonic) paces drop reports.
    func takePending(now: Double) -> [ArraySlice<UInt8>] {
        state.withLock { state in
            for report in state.queue.takeDropReports(now: now) { state.queue.enqueue(report) }
            let chunks = state.queue.takePending(limit: Self.writeBatch)
            if chunks.isEmpty { state.flushScheduled = false }
            return chunks
        }
    }

    /// Marks `written` bytes of the last ``takePending(now:)`` as sent; returns the replies
    /// completed.
    func consume(_ written: Int) -> Int {
        state.withLock { $0.queue.consume(written) }
    }

    /// Messages queued.
    var count: Int { state.withLock { $0.queue.count } }

    /// Drops of each stream since the client connected.
    var totalDropped: [StreamName: Int] { state.withLock { $0.queue.totalDropped } }

    /// Later posts are discarded.
    func close() {
        state.withLock { $0.closed = true }
    }
}
