import Dispatch
import Glibc
import MotionProtocol

/// One connected client on the server's queue: its socket, the request lines it sent, its
/// bounded send queue, and the accounting that keeps a bad or slow client from hurting anyone
/// else. All methods run on the server's queue.
///
/// Flow control: while the client has many requests in flight or its send queue is full, its
/// socket is not read (the kernel's buffer then pushes back on the client), so neither its
/// requests nor the replies to them pile up in the daemon.
final class ClientConnection {
    let id: ClientID
    let fd: Int32
    let credentials: PeerCredentials?
    var framer = LineFramer()
    var outgoing = SendQueue()
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

    /// Whether more input should wait: too many requests in flight or a full send queue.
    var shouldPauseReading: Bool {
        inFlight >= Self.maximumInFlight || outgoing.count >= Self.maximumQueued
    }

    private var canResumeReading: Bool {
        inFlight < Self.maximumInFlight / 2 && outgoing.count < Self.maximumQueued / 2
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
    /// rest. Returns false when the connection failed (the caller closes it).
    func flush() -> Bool {
        guard !closed else { return false }
        while true {
            for report in outgoing.takeDropReports() { outgoing.enqueue(report) }
            let chunks = outgoing.pending(limit: 64)
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
                inFlight -= outgoing.consume(written)
                continue
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
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

    /// Stops watching the socket and closes it (once both sources are cancelled).
    func close() {
        guard !closed else { return }
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
