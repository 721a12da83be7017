import Dispatch
import Glibc
import MotionProtocol
import MotionSync

/// One connection to motiond that keeps itself up: it connects (and while the daemon is away,
/// tries again after 0.05 s, doubling up to 2 s), reads the hello, hands every message on, and
/// matches replies to requests. Everything runs on `queue`, including the events it reports.
// @unchecked: every `var` (and `report`) is confined to `queue`: its owner, MotionManager, calls
// it only there, and its read source and retry timer run there; the compiler cannot see that,
// the methods assert it in debug builds.
final class DaemonLink: @unchecked Sendable {
    /// What the owner learns.
    enum Event {
        /// A connection is up; the hello says what the daemon has and what this process may
        /// receive. Subscriptions must be made again: a new connection has none.
        case connected(Hello)
        case message(ServerMessage)
        /// The connection is down (or could not be made); a new attempt is scheduled.
        case disconnected(MotionClientError)
    }

    typealias ReplyHandler = (Result<ServerMessage.Reply, MotionClientError>) -> Void

    let path: String
    private let queue: DispatchQueue
    private let report: (Event) -> Void

    // Confined to `queue`.
    private var fd: Int32 = -1
    private var source: DispatchSourceRead?
    private var framer = LineFramer()
    private var greeted = false
    private var running = false
    private var retry = DaemonLink.firstRetry
    private var retryScheduled = false
    private var nextID = 1
    private var waiting: [Int: ReplyHandler] = [:]
    /// Why the daemon ended the last connection (a goodbye or an outright refusal).
    private var farewell: MotionClientError?
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    private static let firstRetry = 0.05
    private static let lastRetry = 2.0

    init(path: String, queue: DispatchQueue, report: @escaping (Event) -> Void) {
        self.path = path
        self.queue = queue
        self.report = report
    }

    /// Whether a connection is up and greeted.
    var isConnected: Bool { greeted }

    /// Starts connecting (idempotent). On `queue`.
    func start() {
        queue.assertOnQueue()
        guard !running else { return }
        running = true
        connect()
    }

    /// Closes the connection and stops reconnecting. On `queue`.
    func stop() {
        queue.assertOnQueue()
        running = false
        teardown()
    }

    /// Sends `request` (built with the id it gets) and calls `reply` on `queue` with the
    /// answer, or with why there will be none (the connection went down). On `queue`.
    func send(_ request: (Int) -> ClientRequest, reply: @escaping ReplyHandler) {
        queue.assertOnQueue()
        guard greeted else {
            reply(.failure(.daemonUnreachable("not connected to \(path)")))
            return
        }
        let id = nextID
        nextID += 1
        waiting[id] = reply
        if !write(request(id).json + "\n") {
            lost(.daemonUnreachable("writing to \(path) failed: \(SystemError.last())"))
        }
    }

    private func connect() {
        queue.assertOnQueue()
        retryScheduled = false
        guard running, fd < 0 else { return }
        do {
            fd = try DaemonSocket.connect(path: path)
        } catch {
            lost(.daemonUnreachable("cannot connect to \(path): \(error)"))
            return
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        framer = LineFramer()
        farewell = nil
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let descriptor = fd
        source.setEventHandler { [weak self] in self?.readable() }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        self.source = source
    }

    /// Reads until the socket is drained: the end of the connection may come in the same
    /// wake-up as the last data (a goodbye), and need not wake the source again.
    private func readable() {
        queue.assertOnQueue()
        while fd >= 0 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 {
                lost(farewell ?? .daemonUnreachable("motiond closed the connection"))
                return
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { lost(.daemonUnreachable("reading from \(path) failed: \(SystemError.last())")) }
                return
            }
            framer.append(buffer[0..<count])
            processLines()
        }
    }

    private func processLines() {
        queue.assertOnQueue()
        while fd >= 0 {
            let line: ArraySlice<UInt8>
            do {
                guard let next = try framer.nextLine() else { return }
                line = next
            } catch {
                lost(.protocolMismatch("motiond sent a line longer than \(framer.limit) bytes"))
                return
            }
            let message: ServerMessage?
            do {
                message = try ServerMessage.parse(line: line)
            } catch {
                // Before the hello a bad line means another protocol; after it, one line this
                // version cannot read is skipped.
                if !greeted {
                    lost(.protocolMismatch("\(error.message)"))
                    return
                }
                continue
            }
            if let message { handle(message) }
        }
    }

    private func handle(_ message: ServerMessage) {
        queue.assertOnQueue()
        switch message {
        case .hello(let hello):
            greeted = true
            retry = Self.firstRetry
            report(.connected(hello))
        case .reply(let id?, let result):
            waiting.removeValue(forKey: id)?(result.mapError(MotionClientError.init))
        case .reply(nil, .failure(let error)):
            // Without an id: a refusal of the whole connection (the goodbye follows).
            farewell = MotionClientError(error)
        case .goodbye(let reason):
            if farewell == nil { farewell = .daemonUnreachable("motiond said goodbye: \(reason)") }
        default:
            if greeted { report(.message(message)) }
        }
    }

    /// The connection is gone (or never came): tell the owner and every request waiting, and
    /// try again later.
    private func lost(_ error: MotionClientError) {
        queue.assertOnQueue()
        teardown()
        report(.disconnected(error))
        guard running, !retryScheduled else { return }
        retryScheduled = true
        queue.asyncAfter(deadline: .now() + retry) { [weak self] in self?.connect() }
        retry = min(retry * 2, Self.lastRetry)
    }

    private func teardown() {
        queue.assertOnQueue()
        source?.cancel()
        source = nil
        fd = -1
        greeted = false
        let orphans = waiting
        waiting = [:]
        for handler in orphans.values { handler(.failure(.daemonUnreachable("the connection to \(path) was lost"))) }
    }

    /// Writes a whole line; requests are short, so waiting for room is rare and brief.
    private func write(_ line: String) -> Bool {
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                bytes = bytes.dropFirst(sent)
            } else if sent < 0, errno == EAGAIN || errno == EINTR {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&poller, 1, 1000) > 0 else { return false }
            } else {
                return false
            }
        }
        return true
    }
}
