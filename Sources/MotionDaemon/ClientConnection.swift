import Dispatch
import Glibc
import Logging
import MotionIIO
import MotionProtocol

/// One connected client as the socket server sees it: its socket, the request lines it sent,
/// the ``ClientOutbox`` the pipeline fills, and the accounting that keeps a bad or slow client
/// from hurting anyone else. Not `Sendable`: it lives on the server's queue only (the
/// pipeline's thread sees just the outbox).
///
/// Flow control: while the client has many requests in flight or its send queue is full, its
/// socket is not read (the kernel's buffer then pushes back on the client), so neither its
/// requests nor the replies to them pile up in the daemon.
///
/// Half-close (docs/PROTOCOL.md §1): once the client has shut down its sending side, nothing
/// more is read; every request already received is still answered.
final class ClientConnection {
    let id: ClientID
    let fd: Int32
    let credentials: PeerCredentials?
    let outbox: ClientOutbox

    /// What the access policy gave it.
    var grant = AccessGrant.coarse
    var framer = LineFramer()
    /// Requests handed to the pipeline whose replies are not written yet.
    var inFlight = 0
    var consecutiveErrors = 0
    var totalErrors = 0
    /// The client shut down its sending side (end of file on read).
    var inputEnded = false
    /// After ``inputEnded``: every line it sent was handed on or answered.
    var requestsComplete = false
    /// After ``requestsComplete``: the pipeline was asked whether it holds subscriptions.
    var askedForSubscriptions = false
    /// Close once everything queued is written (it half-closed and holds no subscription).
    var closeWhenDrained = false
    private(set) var closed = false
    /// Reading is held back by flow control.
    private(set) var readPaused = false
    private var readSuspended = false
    private var writeArmed = false
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?

    /// Pause reading beyond these; resume below half of them.
    static let maximumInFlight = 32
    static let maximumQueued = SendQueue.defaultSampleCapacity + SendQueue.defaultEventCapacity

    init(id: ClientID, fd: Int32) {
        self.id = id
        self.fd = fd
        outbox = ClientOutbox(id: id, fd: fd)
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

    /// Whether more input should wait: too many requests in flight or a full send queue.
    var shouldPauseReading: Bool {
        inFlight >= Self.maximumInFlight || outbox.count >= Self.maximumQueued
    }

    private var canResumeReading: Bool {
        inFlight < Self.maximumInFlight / 2 && outbox.count < Self.maximumQueued / 2
    }

    func pauseReading() {
        guard !readPaused, !closed else { return }
        readPaused = true
        suspendReadSource()
    }

    /// Resumes reading if the client has caught up (the socket is watched again unless the
    /// client's input ended); returns whether reading is on.
    @discardableResult
    func resumeReadingIfPossible() -> Bool {
        guard readPaused, !closed, canResumeReading else { return !readPaused }
        readPaused = false
        if !inputEnded, readSuspended {
            readSuspended = false
            readSource?.resume()
        }
        return true
    }

    /// The client's input ended: its socket stays readable at end of file, so it is not
    /// watched for reading again.
    func endInput() {
        inputEnded = true
        suspendReadSource()
    }

    private func suspendReadSource() {
        guard !readSuspended else { return }
        readSuspended = true
        readSource?.suspend()
    }

    /// Writes as much of the send queue as the socket takes now; arms the write source for the
    /// rest. `now` (seconds, monotonic) paces drop reports. Returns false when the connection
    /// failed (the caller closes it), with errno set.
    func flush(now: Double) -> Bool {
        guard !closed else { return false }
        let (result, replies) = outbox.write(now: now)
        inFlight -= replies
        switch result {
        case .drained:
            armWrite(false)
            return true
        case .wouldBlock:
            // The write source flushes when the socket takes more.
            armWrite(true)
            return true
        case .failed(let code):
            errno = code
            return false
        }
    }

    /// Whether the client hung up completely (after a half-close the socket reports it as a
    /// hang-up without anything to read or write).
    var hungUp: Bool {
        var poller = pollfd(fd: fd, events: 0, revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLHUP | POLLERR) != 0
    }

    private func armWrite(_ on: Bool) {
        guard on != writeArmed, !closed else { return }
        writeArmed = on
        if on { writeSource?.resume() } else { writeSource?.suspend() }
    }

    /// The journal fields of the client's log lines (`journalctl MOTIOND_CLIENT_UID=1000`).
    var metadata: Logger.Metadata {
        guard let peer = credentials else { return ["client": "\(id)"] }
        return ["client": "\(id)", "client_pid": "\(peer.pid)", "client_uid": "\(peer.uid)"]
    }

    /// Sends `messages` to a client that is not served (it was never started); the server
    /// closes its socket (``LingeringClose``).
    func turnAway(_ messages: [ServerMessage]) {
        for message in messages { outbox.post(OutgoingMessage(message, delivery: .control)) }
        _ = flush(now: BootClock.now())
    }

    /// Stops watching the socket and closes it (once both sources are cancelled); later posts
    /// are discarded.
    func close() {
        guard !closed else { return }
        outbox.close()
        closed = true
        // Cancelled first, then resumed: a suspended source must be resumed to finish its
        // cancellation and be released, and one cancelled before its first resume (the write
        // source of a client never blocked on a write) is never put into epoll at all, so
        // closing churns no registration (swift-corelibs-libdispatch issue 949).
        readSource?.cancel()
        writeSource?.cancel()
        if readSuspended { readSource?.resume() }
        if !writeArmed { writeSource?.resume() }
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
