import Dispatch
import Glibc
import MotionProtocol
import Synchronization

/// One connected client: its socket, the request lines it sent, its bounded send queue, and the
/// accounting that keeps a bad or slow client from hurting anyone else.
///
/// The send queue is shared: the pipeline's thread puts messages in (``post(_:)``), the server's
/// queue writes them out (``flush(now:)``), so a slow server never piles up work anywhere but in
/// this bounded queue. Everything else runs on the server's queue only.
///
/// Flow control: while the client has many requests in flight or its send queue is full, its
/// socket is not read (the kernel's buffer then pushes back on the client), so neither its
/// requests nor the replies to them pile up in the daemon.
final class ClientConnection: @unchecked Sendable {
    let id: ClientID
    let fd: Int32
    let credentials: PeerCredentials?

    /// The queue and whether the server has been asked to write it (or waits for the socket
    /// to take more), so each client costs the server at most one pending task.
    private struct Outbox {
        var queue = SendQueue()
        var flushScheduled = false
        var closed = false
    }
    private let outbox = Mutex(Outbox())

    // Confined to the server's queue.
    /// What the access policy gave it.
    var grant = AccessGrant.coarse
    var framer = LineFramer()
    /// Requests handed to the pipeline whose replies are not written yet.
    var inFlight = 0
    var consecutiveErrors = 0
    var totalErrors = 0
    private(set) var closed = false
    private(set) var readPaused = false
    private var writeArmed = false
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?

    /// Pause reading beyond these; resume below half of them.
    static let maximumInFlight = 32
    static let maximumQueued = SendQueue.defaultSampleCapacity + SendQueue.defaultEventCapacity

    init(id: ClientID, fd: Int32) {
        self.id = id
        self.fd = fd
        credentials = UnixSocket.peerCredentials(fd)
    }

    /// Starts watching the socket; `readable` and `writable` run on `queue`.
    func start(queue: DispatchQueue, readable: @escaping () -> Void, writable: @escaping () -> Void) {
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        // The descriptor is closed only when neither source can touch it any more (the
        // connection itself may be gone by then).
        let closer = DescriptorCloser(fd: fd, users: 2)
        read.setEventHandler(handler: readable)
        read.setCancelHandler(handler: closer.release)
        write.setEventHandler(handler: writable)
        write.setCancelHandler(handler: closer.release)
        readSource = read
        writeSource = write
        read.resume()
    }

    /// Queues a message from any thread; true when the caller must have the server flush this
    /// client (it was not scheduled yet).
    func post(_ message: OutgoingMessage) -> Bool {
        outbox.withLock { box in
            guard !box.closed else { return false }
            box.queue.enqueue(message)
            guard !box.flushScheduled else { return false }
            box.flushScheduled = true
            return true
        }
    }

    /// Drops of each stream since the client connected.
    var totalDropped: [StreamName: Int] { outbox.withLock { $0.queue.totalDropped } }

    /// Whether more input should wait: too many requests in flight or a full send queue.
    var shouldPauseReading: Bool {
        inFlight >= Self.maximumInFlight || outbox.withLock { $0.queue.count } >= Self.maximumQueued
    }

    private var canResumeReading: Bool {
        inFlight < Self.maximumInFlight / 2 && outbox.withLock { $0.queue.count } < Self.maximumQueued / 2
    }

    func pauseReading() {
        guard !readPaused, !closed else { return }
        readPaused = true
        readSource?.suspend()
    }

    /// Resumes reading if the client has caught up; returns whether reading is on.
    @discardableResult
    func resumeReadingIfPossible() -> Bool {
        guard readPaused, !closed, canResumeReading else { return !readPaused }
        readPaused = false
        readSource?.resume()
        return true
    }

    /// Writes as much of the send queue as the socket takes now; arms the write source for the
    /// rest. `now` (seconds, monotonic) paces drop reports. Returns false when the connection
    /// failed (the caller closes it).
    func flush(now: Double) -> Bool {
        guard !closed else { return false }
        while true {
            let chunks = outbox.withLock { box in
                for report in box.queue.takeDropReports(now: now) { box.queue.enqueue(report) }
                let chunks = box.queue.pending(limit: 64)
                if chunks.isEmpty { box.flushScheduled = false }
                return chunks
            }
            guard !chunks.isEmpty else { break }
            let written: Int
            if chunks.count == 1 {
                written = chunks[0].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            } else {
                var joined: [UInt8] = []
                joined.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
                for chunk in chunks { joined.append(contentsOf: chunk) }
                written = joined.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            if written > 0 {
                inFlight -= outbox.withLock { $0.queue.consume(written) }
                continue
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Still scheduled: the write source flushes when the socket takes more.
                armWrite(true)
                return true
            }
            return false
        }
        armWrite(false)
        return true
    }

    private func armWrite(_ on: Bool) {
        guard on != writeArmed, !closed else { return }
        writeArmed = on
        if on { writeSource?.resume() } else { writeSource?.suspend() }
    }

    /// Stops watching the socket and closes it (once both sources are cancelled); later posts
    /// are discarded.
    func close() {
        guard !closed else { return }
        outbox.withLock { $0.closed = true }
        // A suspended source must be resumed before it can be cancelled and released.
        if readPaused { readSource?.resume() }
        if !writeArmed { writeSource?.resume() }
        closed = true
        readSource?.cancel()
        writeSource?.cancel()
        readSource = nil
        writeSource = nil
    }
}

/// Closes a descriptor when its last user (a dispatch source's cancel handler, all on one
/// queue) releases it.
private final class DescriptorCloser {
    private let fd: Int32
    private var users: Int

    init(fd: Int32, users: Int) {
        self.fd = fd
        self.users = users
    }

    func release() {
        users -= 1
        if users == 0 { Glibc.close(fd) }
    }
}
