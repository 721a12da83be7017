import Dispatch
import Glibc
import Logging
import MotionConfiguration
import MotionIIO
import MotionProtocol
import MotionSync

/// The socket server: a stream Unix socket speaking protocol v1 (docs/PROTOCOL.md), on its own
/// queue, `motiond.server`, so client I/O never runs on the pipeline.
///
/// It accepts clients, greets each through the pipeline (which knows the sensors), parses their
/// request lines and hands valid requests to the pipeline; bad lines get an error reply here.
/// Messages from the pipeline go to each client's ``ClientOutbox`` on the pipeline's thread:
/// written at once when nothing of that client waits, else kept in its bounded ``SendQueue``
/// and written here with non-blocking writes as its socket takes them, so a client that reads slowly
/// or never only ever loses its own oldest samples, and a server that falls behind (too many
/// clients for the machine) makes clients lose samples instead of piling up work. A client
/// whose line exceeds the limit, or that keeps sending garbage, is told why and disconnected;
/// nobody else notices.
///
/// Every connection's peer credentials are logged and decide, through the ``AccessPolicy``,
/// what it may receive; a configuration reload that changes what a connected client may
/// receive disconnects it with a goodbye (a client reconnects and learns its new access).
///
/// `@unchecked Sendable`: everything mutable but `outboxes` (behind its `Lock`) is confined to
/// `queue` — touched only in work submitted to it (sources, `async`, `sync`), and the confined
/// methods begin with `queue.assertOnQueue()` (checked in debug builds); the pipeline's thread
/// calls ``deliver(_:)``, which reads `outboxes` alone. `make check-tsan` runs the
/// socket tests (churn, chaos) under ThreadSanitizer to hold it to that.
final class SocketServer: @unchecked Sendable {
    let path: String
    private let pipeline: Pipeline
    private let logger: Logger
    private let queue = DispatchQueue(label: "motiond.server")

    // Confined to `queue`.
    private var listener: Int32 = -1
    private var acceptSource: DispatchSourceRead?
    private var acceptPaused = false
    /// The connected clients' send queues, by client number (numbers only grow, so a new one
    /// is appended): the pipeline's thread fills them directly.
    private let outboxes = Lock<[ClientOutbox]>([])
    private var connections: [ClientID: ClientConnection] = [:]
    /// Watches half-closed clients that still subscribe for their final hang-up.
    private let hangUps = HangUpWatch()
    private let lingering = LingeringClose()
    private var nextID: UInt64 = 1
    /// Where reads land: allocated, never cleared, so only the pages a read fills become
    /// resident (a zeroed array made all 64 KiB private memory at start, for requests of a few
    /// hundred bytes). Only bytes `read` wrote are ever looked at.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    private var stopping = false
    private var file: SocketFile
    private var policy: AccessPolicy

    /// More clients than this are turned away with a goodbye.
    static let maximumClients = 4096
    /// Bad lines in a row, or in all, after which a client is disconnected.
    static let maximumConsecutiveErrors = 10
    static let maximumErrors = 100

    /// `socket`: the path, and the permissions given to a socket file the server creates.
    init(socket: DaemonConfiguration.Socket, policy: AccessPolicy, pipeline: Pipeline, logger: Logger) {
        path = socket.path
        file = SocketFile(socket)
        self.policy = policy
        self.pipeline = pipeline
        self.logger = logger
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts accepting: on `adopted` (a socket systemd passed) or on a socket bound here.
    func start(adopting adopted: Int32? = nil) throws(SystemError) {
        queue.assertNotOnQueue()
        let result = queue.sync { () -> Result<Bool, SystemError> in
            do throws(SystemError) {
                listener = try file.listen(adopting: adopted)
            } catch {
                return .failure(error)
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
            source.setEventHandler { [unowned self] in acceptAll() }
            source.resume()
            acceptSource = source
            return .success(file.activated)
        }
        let activated = try result.get()
        logger.info("listening on \(path)\(activated ? " (socket passed by systemd)" : "")")
    }

    /// Messages from the pipeline (called on the pipeline's queue, usually on a source's
    /// reading thread): each client's share goes into its queue and, when nothing of it waits,
    /// straight out to its socket with one write, on this thread. Only replies, and clients
    /// whose socket is full or failed, are left to one task on the server's queue.
    ///
    /// The shares are found without hashing (this runs for every sample and client): the
    /// clients' messages sorted by client number, then by their place in the batch, and walked
    /// beside the outboxes, which are kept by number.
    func deliver(_ batch: [Addressed]) {
        var items: [(id: ClientID, position: Int, message: OutgoingMessage)] = []
        items.reserveCapacity(batch.count)
        for case (let position, .client(let id, let message)) in batch.enumerated() { items.append((id, position, message)) }
        guard !items.isEmpty else { return }
        items.sort { ($0.id, $0.position) < ($1.id, $1.position) }
        let messages = items.map(\.message)
        let targets = outboxes.withLock { $0 }
        let now = BootClock.now()
        var wake: [ClientID] = []
        var target = 0
        var start = 0
        while start < items.count {
            let id = items[start].id
            var end = start + 1
            while end < items.count, items[end].id == id { end += 1 }
            while target < targets.count, targets[target].id < id { target += 1 }
            if target < targets.count, targets[target].id == id, targets[target].deliver(messages[start..<end], now: now) { wake.append(id) }
            start = end
        }
        guard !wake.isEmpty else { return }
        queue.async { [self, wake] in
            for id in wake {
                if let client = connections[id] { flush(client) }
            }
        }
    }

    /// A reloaded configuration: the socket file's mode and group (when the server created
    /// it; systemd owns an activated one) and the access policy. Clients whose access changes
    /// are disconnected with a goodbye saying so. Blocks until done.
    func reconfigure(socket new: DaemonConfiguration.Socket, policy: AccessPolicy) {
        queue.assertNotOnQueue()
        queue.sync {
            do {
                try file.reconfigure(new)
            } catch {
                logger.error("\(error)")
            }
            self.policy = policy
            for client in connections.values.sorted(by: { $0.id < $1.id }) {
                let decision = policy.decide(client.credentials)
                guard decision.grant != client.grant else { continue }
                logger.notice("\(client.id): access now \(decision.grant.map(\.description) ?? "refused") (\(decision.reason)): disconnecting it to reconnect",
                              metadata: client.metadata)
                goodbye(client, "access policy changed: reconnect")
            }
        }
    }

    /// Connected clients, from any thread.
    var clientCount: Int { outboxes.withLock { $0.count } }

    /// Says goodbye to every client, closes them and the listening socket, and removes the
    /// socket file. Blocks until done.
    func stop(reason: String) {
        queue.assertNotOnQueue()
        queue.sync {
            stopping = true
            acceptSource?.cancel()
            acceptSource = nil
            if listener >= 0 { Glibc.close(listener) }
            listener = -1
            file.remove()
            hangUps.stop()
            lingering.closeAll()
            outboxes.withLock { $0 = [] }
            let all = connections.values.sorted { $0.id < $1.id }
            connections = [:]
            for client in all {
                client.outbox.post(OutgoingMessage(.goodbye(reason: reason)))
                _ = client.flush(now: BootClock.now())
                // No lingering here: the daemon ends. What the client sent is discarded so that
                // it reads the goodbye and an end of file rather than a reset.
                lingering.shutDown(client.fd)
                client.close()
            }
        }
    }

    // MARK: - Queue-confined work

    private func acceptAll() {
        queue.assertOnQueue()
        while !stopping {
            guard let fd = UnixSocket.accept(listener) else {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
                if code == EMFILE || code == ENFILE {
                    // Out of descriptors: stop accepting for a moment instead of spinning.
                    logger.warning("cannot accept a client on \(path): \(SystemError(code)); retrying in 100 ms")
                    pauseAccepting()
                    return
                }
                logger.warning("accept on \(path): \(SystemError(code))")
                return
            }
            let client = ClientConnection(id: ClientID(raw: nextID), fd: fd)
            nextID += 1
            if clientCount >= Self.maximumClients {
                turnAway(client, [.goodbye(reason: "too many clients (\(Self.maximumClients))")])
                logger.warning("turned away a client: \(Self.maximumClients) are connected")
                continue
            }
            let who = client.credentials?.description ?? "peer unknown"
            let decision = policy.decide(client.credentials)
            guard let grant = decision.grant else {
                logger.notice("\(client.id) refused (\(who)): \(decision.reason)", metadata: client.metadata)
                let whom = client.credentials.map { "uid \($0.uid)" } ?? "a peer of unknown credentials"
                turnAway(client, [.reply(id: nil, .failure(ProtocolError(.accessDenied, "motiond serves nothing to \(whom): \(decision.reason)"))),
                                  .goodbye(reason: "access denied")])
                continue
            }
            client.grant = grant
            connections[client.id] = client
            outboxes.withLock { $0.append(client.outbox) }
            client.start(queue: queue, readable: { [unowned self] in readable(client) }, writable: { [unowned self] in flush(client) })
            logger.info("\(client.id) connected (\(who)): \(grant) access, \(decision.reason)", metadata: client.metadata)
            pipeline.connected(client.id, grant: grant)
        }
    }

    /// Sends `messages` to a client that is not served and closes its socket (lingering).
    private func turnAway(_ client: ClientConnection, _ messages: [ServerMessage]) {
        client.turnAway(messages)
        lingering.close(client.fd, on: queue)
    }

    private func pauseAccepting() {
        guard !acceptPaused, let source = acceptSource else { return }
        acceptPaused = true
        source.suspend()
        queue.asyncAfter(deadline: .now() + 0.1) { [self] in
            guard acceptPaused else { return }
            acceptPaused = false
            if !stopping { acceptSource?.resume() }
        }
    }

    private func readable(_ client: ClientConnection) {
        queue.assertOnQueue()
        guard !client.closed else { return }
        let count = read(client.fd, readBuffer.baseAddress, readBuffer.count)
        if count > 0 {
            client.framer.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            processLines(client)
        } else if count == 0 {
            // End of file. A client that closed has nobody left to answer; one that only shut
            // down its sending side (a half-close) still waits for its replies.
            if client.hungUp {
                disconnect(client, "closed the connection")
            } else {
                client.endInput()
                processLines(client)
            }
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            disconnect(client, "read failed: \(SystemError.last())")
        }
    }

    /// Handles the complete lines received, until the client must wait (flow control).
    private func processLines(_ client: ClientConnection) {
        queue.assertOnQueue()
        while !client.closed {
            if client.shouldPauseReading {
                client.pauseReading()
                return
            }
            let line: ArraySlice<UInt8>
            do {
                guard let next = try client.framer.nextLine() else {
                    if client.inputEnded { requestsEnded(client) }
                    return
                }
                line = next
            } catch {
                refuse(client, ProtocolError(.lineTooLong, "a line exceeded \(Wire.maximumLineLength) bytes"), id: nil)
                goodbye(client, "line too long")
                return
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                let request = try ClientRequest(line: line)
                client.consecutiveErrors = 0
                client.inFlight += 1
                pipeline.received(request, from: client.id, grant: client.grant)
            } catch {
                client.consecutiveErrors += 1
                client.totalErrors += 1
                refuse(client, error, id: ClientRequest.requestID(inLine: line))
                if client.consecutiveErrors >= Self.maximumConsecutiveErrors || client.totalErrors >= Self.maximumErrors {
                    refuse(client, ProtocolError(.tooManyErrors, "\(client.totalErrors) bad requests: disconnecting"), id: nil)
                    goodbye(client, "too many bad requests")
                    return
                }
            }
        }
    }

    private func refuse(_ client: ClientConnection, _ error: ProtocolError, id: Int?) {
        var metadata = client.metadata
        metadata["error_code"] = "\(error.code.rawValue)"
        logger.debug("\(client.id): \(error)", metadata: metadata)
        // Never handed to the pipeline, so not a request in flight.
        client.outbox.post(OutgoingMessage(.reply(id: id, .failure(error)), delivery: .control))
        flush(client)
    }

    // MARK: Half-close

    /// The client's input ended and every complete line of it was handled. A last line
    /// without its line feed is handled as a line; then, once every request is answered, the
    /// connection closes unless the client still subscribes to something.
    private func requestsEnded(_ client: ClientConnection) {
        guard !client.requestsComplete else { return }
        if client.framer.buffered > 0 {
            client.framer.append([UInt8(ascii: "\n")])
            processLines(client)
            return
        }
        client.requestsComplete = true
        logger.debug("\(client.id) shut down its sending side", metadata: client.metadata)
        finishIfAnswered(client)
    }

    /// After a half-close, once the last reply is written: asks the pipeline whether anything
    /// will still be pushed (it answers after every earlier request); if not, the connection
    /// closes when its queue is written out, otherwise it streams on until the client hangs up.
    private func finishIfAnswered(_ client: ClientConnection) {
        guard client.requestsComplete, client.inFlight == 0, !client.askedForSubscriptions, !client.closed else { return }
        client.askedForSubscriptions = true
        let id = client.id
        pipeline.hasSubscriptions(id) { [self] subscribed in
            queue.async { [self] in
                guard let client = connections[id] else { return }
                if subscribed {
                    hangUps.start(on: queue) { [unowned self] in lookForHangUps() }
                } else {
                    client.closeWhenDrained = true
                    flush(client)
                }
            }
        }
    }

    /// Disconnects the half-closed clients that hung up; whether any half-closed one is left.
    private func lookForHangUps() -> Bool {
        queue.assertOnQueue()
        for client in connections.values.filter(\.requestsComplete) where client.hungUp { disconnect(client, "closed the connection") }
        return connections.values.contains(where: \.requestsComplete)
    }

    /// Tells the client why, then disconnects it; its socket lingers (``LingeringClose``) on a
    /// duplicate descriptor while the connection's own closes.
    private func goodbye(_ client: ClientConnection, _ reason: String) {
        client.outbox.post(OutgoingMessage(.goodbye(reason: reason)))
        _ = client.flush(now: BootClock.now())
        let copy = fcntl(client.fd, F_DUPFD_CLOEXEC, 0)
        if copy >= 0 { lingering.close(copy, on: queue) }
        disconnect(client, reason)
    }

    private func flush(_ client: ClientConnection) {
        queue.assertOnQueue()
        guard client.flush(now: BootClock.now()) else {
            let code = errno
            disconnect(client, code == EPIPE || code == ECONNRESET ? "closed the connection" : "write failed: \(SystemError(code))")
            return
        }
        if client.readPaused, client.resumeReadingIfPossible() {
            processLines(client)
        }
        guard client.inputEnded, !client.closed else { return }
        finishIfAnswered(client)
        if client.closeWhenDrained, client.outbox.count == 0 {
            disconnect(client, "closed its sending side; every request answered")
        }
    }

    private func disconnect(_ client: ClientConnection, _ reason: String) {
        queue.assertOnQueue()
        guard !client.closed else { return }
        client.close()
        connections[client.id] = nil
        outboxes.withLock { $0.removeAll { $0 === client.outbox } }
        let dropped = client.outbox.totalDropped.values.reduce(0, +)
        logger.info("\(client.id) disconnected: \(reason)\(dropped > 0 ? " (\(dropped) samples dropped while it lagged)" : "")",
                    metadata: client.metadata)
        pipeline.disconnected(client.id)
    }
}
