import Dispatch
import Glibc

/// Closes the sockets of clients the server sends away (a goodbye) so that they read the
/// goodbye and then a clean end of file.
///
/// Why: closing a Unix stream socket whose receive queue still holds bytes makes the kernel
/// report ECONNRESET to the peer instead of end of file; a client that had sent a request the
/// daemon never read (it was refused at connect, or is sent away mid-stream) would see its
/// connection "reset by peer" right after the goodbye. So the sending side is shut down at once
/// (the client reads the goodbye, then end of file), and the socket stays open, its input read
/// and discarded, until the client closes it or ``deadline`` passes. At most ``maximumLingering``
/// sockets linger; beyond that one closes at once after discarding what is already queued.
/// Confined to the server's queue.
final class LingeringClose {
    /// Seconds a socket lingers at most.
    static let deadline = 2.0
    /// Sockets lingering at once at most (a flood of refused clients holds few descriptors).
    static let maximumLingering = 64
    /// Bytes discarded per wake-up at most (a client that keeps sending cannot hold the queue).
    static let discardLimit = 65_536
    /// Each lingering socket's read source and deadline timer.
    private var lingering: [UInt64: (read: DispatchSourceRead, deadline: DispatchSourceTimer)] = [:]
    private var nextKey: UInt64 = 0
    private var scratch = [UInt8](repeating: 0, count: 4096)

    /// Takes over `fd` (non-blocking, the caller's to give away): shuts down its sending side
    /// and closes it once the peer closed, after ``deadline`` at most. Runs on `queue`.
    func close(_ fd: Int32, on queue: DispatchQueue) {
        queue.assertOnQueue()
        guard shutDown(fd), lingering.count < Self.maximumLingering else {
            Glibc.close(fd)
            return
        }
        let key = nextKey
        nextKey += 1
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in
            if !discardInput(fd) { end(key) }
        }
        source.setCancelHandler { Glibc.close(fd) }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.deadline)
        timer.setEventHandler { [unowned self] in end(key) }
        lingering[key] = (source, timer)
        source.resume()
        timer.resume()
    }

    /// Closes every lingering socket (the server stops).
    func closeAll() {
        for key in Array(lingering.keys) { end(key) }
    }

    private func end(_ key: UInt64) {
        guard let sources = lingering.removeValue(forKey: key) else { return }
        sources.read.cancel()
        sources.deadline.cancel()
    }

    /// Shuts down the sending side of `fd` (the peer reads an end of file after what was sent)
    /// and drops what the peer sent that is queued; whether the peer may still send. Alone, for
    /// a socket about to close without lingering (the daemon stops).
    @discardableResult
    func shutDown(_ fd: Int32) -> Bool {
        shutdown(fd, Int32(SHUT_WR))
        return discardInput(fd)
    }

    /// Reads and drops what `fd` holds (up to ``discardLimit``); whether the peer may still
    /// send (no end of file, no error).
    private func discardInput(_ fd: Int32) -> Bool {
        var discarded = 0
        while discarded < Self.discardLimit {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) }
            discarded += count
        }
        return true
    }
}
