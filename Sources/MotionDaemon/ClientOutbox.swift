import Glibc
import MotionProtocol
import MotionSync

/// The part of a client that two threads share: its bounded ``SendQueue`` and its socket's
/// writing side. The pipeline's thread hands messages in (``deliver(_:now:)``) and, when
/// nothing is waiting to be written, writes them at once on that thread — a burst of samples
/// reaches the client without waking the server. The server's queue writes everything else
/// (replies, whatever a full socket held back: ``write(now:)``). Every write happens under the
/// one ``Lock``, so what reaches the socket is always whole lines in order, however the
/// pipeline coalesces or drops meanwhile. Sendable as the compiler checks it: constants and a
/// ``Lock``.
final class ClientOutbox: Sendable {
    let id: ClientID
    /// The client's socket. Written only under the lock; closed only after ``close()`` (the
    /// connection closes it once its dispatch sources are cancelled), so a writer that holds
    /// the lock and finds the outbox open writes to this client's socket and no other.
    private let fd: Int32

    private struct State {
        var queue = SendQueue()
        /// The server has been asked to write this client (a task is queued, or it waits for
        /// the socket to take more): the pipeline only queues.
        var serverFlushPending = false
        var closed = false
    }
    private let state = Lock(State())

    /// Messages written with one `send` at most.
    static let writeBatch = 64

    /// What a write achieved.
    enum WriteResult: Equatable {
        /// Everything queued was written.
        case drained
        /// The socket takes no more for now; the rest stays queued.
        case wouldBlock
        /// The write failed with this errno (the connection is broken).
        case failed(Int32)
    }

    init(id: ClientID, fd: Int32) {
        self.id = id
        self.fd = fd
    }

    /// From the pipeline's thread: queues `messages`, and writes them at once when the server
    /// is not already on it and none of them is a reply (replies are the server's to write: it
    /// counts them for flow control). True when the caller must have the server write this
    /// client (it was not asked yet). Discarded once closed.
    ///
    /// A lone message for a client with nothing queued (every sample of a client that keeps
    /// up) goes straight to the socket; it is queued only if the socket does not take all of it.
    func deliver(_ messages: ArraySlice<OutgoingMessage>, now: Double) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            if messages.count == 1, let message = messages.first, message.delivery != .reply,
               !state.serverFlushPending, state.queue.isIdle {
                let written = message.bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if written == message.bytes.count { return false }
                state.queue.enqueue(message)
                _ = state.queue.consume(max(written, 0))
            } else {
                for message in messages { state.queue.enqueue(message) }
            }
            guard !state.serverFlushPending else { return false }
            if !messages.contains(where: { $0.delivery == .reply }), write(&state, now: now).result == .drained { return false }
            state.serverFlushPending = true
            return true
        }
    }

    /// Queues a message of the server's own (an error reply, a goodbye); the server writes it.
    func post(_ message: OutgoingMessage) {
        state.withLock { state in
            guard !state.closed else { return }
            state.queue.enqueue(message)
        }
    }

    /// From the server's queue: writes as much as the socket takes now; returns how that went
    /// and how many replies were completed. Once drained, the pipeline writes directly again.
    func write(now: Double) -> (result: WriteResult, replies: Int) {
        state.withLock { state in
            let outcome = write(&state, now: now)
            state.serverFlushPending = outcome.result != .drained
            return outcome
        }
    }

    /// Writes queued messages (drop reports that are due first) until the queue is empty or
    /// the socket is full. `now` (seconds, monotonic) paces drop reports.
    private func write(_ state: inout State, now: Double) -> (result: WriteResult, replies: Int) {
        var replies = 0
        while true {
            for report in state.queue.takeDropReports(now: now) { state.queue.enqueue(report) }
            let chunks = state.queue.takePending(limit: Self.writeBatch)
            guard !chunks.isEmpty else { return (.drained, replies) }
            let written: Int
            if chunks.count == 1 {
                written = chunks[0].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            } else {
                var joined: [UInt8] = []
                joined.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
                for chunk in chunks { joined.append(contentsOf: chunk) }
                written = joined.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            let code = errno
            // Consumed even when nothing went out, so the messages are no longer held.
            replies += state.queue.consume(max(written, 0))
            if written > 0 || (written < 0 && code == EINTR) { continue }
            if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return (.wouldBlock, replies) }
            return (.failed(written == 0 ? EPIPE : code), replies)
        }
    }

    /// Messages queued.
    var count: Int { state.withLock { $0.queue.count } }

    /// Drops of each stream since the client connected.
    var totalDropped: [StreamName: Int] { state.withLock { $0.queue.totalDropped } }

    /// Later messages are discarded and nothing more is written; the socket may be closed once
    /// this returns.
    func close() {
        state.withLock { $0.closed = true }
    }
}
