import FoundationEssentials
import Glibc
import MotionCore
import MotionProtocol

/// A blocking connection to a running motiond for motionctl's daemon commands: sends requests,
/// reads the daemon's messages one line at a time.
public final class DaemonConnection {
    private let fd: Int32
    /// The socket's path, for messages.
    public let path: String
    private var framer = LineFramer()
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// The daemon's greeting: its sensors, the frames it can serve, and this connection's access.
    public let hello: Hello
    /// Seconds to wait for each reply (``request(_:)``).
    public let replyTimeout: Double
    /// The JSON text of the message ``next(before:)`` returned last, as the daemon sent it
    /// (fields this motionctl does not know included).
    public private(set) var lastLine: [UInt8] = []

    /// Why talking to the daemon failed; the exit code tells scripts which.
    public enum Failure: Error, CustomStringConvertible {
        case unreachable(path: String, reason: String)
        case closed
        case protocolError(ProtocolError)
        /// The daemon's access policy refused this user (the message says why).
        case denied(String)
        /// The daemon answered a request with an error (other than `accessDenied`).
        case rejected(ProtocolError)
        /// Connected, but what was waited for (`the hello`, `a reply to status`) did not come
        /// within `seconds`: a stopped, hung or foreign server.
        case timedOut(path: String, waitingFor: String, seconds: Double)

        public var description: String {
            switch self {
            case .unreachable(let path, let reason): return "cannot reach motiond at \(path): \(reason) (is it running? --socket PATH)"
            case .closed: return "motiond closed the connection"
            case .protocolError(let error): return "motiond sent something this motionctl cannot read: \(error)"
            case .denied(let why): return "motiond refuses this user: \(why)"
            case .rejected(let error): return "motiond: \(error.message) (\(error.code.rawValue))"
            case .timedOut(let path, let what, let seconds):
                return "motiond at \(path) is not answering: no \(what) within \(DecimalText.shortest(seconds)) s (is it stopped or hung? --reply-timeout SECONDS waits longer)"
            }
        }

        /// EX_UNAVAILABLE when the daemon is not there, EX_PROTOCOL when it speaks another
        /// language, EX_NOPERM when its access policy says no, 1 when it rejects a request.
        public var exitCode: Int32 {
            switch self {
            case .unreachable, .closed, .timedOut: return 69
            case .protocolError: return 76
            case .denied: return 77
            case .rejected: return 1
            }
        }
    }

    /// How long motionctl waits for the hello and for each reply unless told otherwise.
    public static let defaultReplyTimeout = 5.0

    /// Connects and reads the hello, retrying for up to `wait` seconds while nobody listens;
    /// once connected, the hello must come within `replyTimeout` seconds, and so must each reply.
    public convenience init(path: String, wait: Double, replyTimeout: Double = defaultReplyTimeout) throws(Failure) {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            do {
                try self.init(path: path, replyTimeout: replyTimeout)
                return
            } catch {
                guard case .unreachable = error, Date() < deadline else { throw error }
                usleep(100_000)
            }
        }
    }

    /// Connects and reads the hello, which must come within `replyTimeout` seconds.
    public init(path: String, replyTimeout: Double = defaultReplyTimeout) throws(Failure) {
        fd = try Self.connectSocket(path: path, timeout: replyTimeout)
        self.path = path
        self.replyTimeout = replyTimeout
        // Read before `self` is complete, so with a framer and buffer of its own (the framer is kept).
        var framer = LineFramer()
        var buffer = [UInt8](repeating: 0, count: 1024)
        do throws(Failure) {
            let deadline = ContinuousClock.now + .seconds(replyTimeout)
            switch try Self.read(from: fd, framer: &framer, buffer: &buffer, before: deadline)?.message {
            case .hello(let hello)?:
                self.hello = hello
            case nil:
                throw Failure.timedOut(path: path, waitingFor: "hello after connecting", seconds: replyTimeout)
            case .reply(nil, .failure(let error))? where error.code == .accessDenied:
                throw Failure.denied(error.message)
            default:
                throw Failure.protocolError(ProtocolError(.invalidValue, "the first message was not a hello"))
            }
        } catch {
            close(fd)
            throw error
        }
        self.framer = framer
    }

    /// A blocking, close-on-exec connection to the Unix socket at `path`, nothing read or sent
    /// yet; the caller owns the descriptor. Also the daemon benchmark's way in for each client.
    /// A listener whose queue of pending connections stays full for `timeout` seconds is
    /// ``Failure/unreachable(path:reason:)`` too.
    public static func connectSocket(path: String, timeout: Double? = nil) throws(Failure) -> Int32 {
        do {
            return try DaemonSocket.connect(path: path, timeout: timeout)
        } catch {
            throw .unreachable(path: path, reason: error.reason)
        }
    }

    deinit { close(fd) }

    public func send(_ request: ClientRequest) throws(Failure) {
        let bytes = Array((request.json + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw .closed }
            offset += n
        }
    }

    /// The next message the daemon sends (unknown message types skipped); blocks.
    public func next() throws(Failure) -> ServerMessage {
        // Without a deadline it returns only with a message.
        try next(before: nil)!
    }

    /// The next message the daemon sends (unknown message types skipped), or nil when none has
    /// arrived by `deadline`.
    public func next(before deadline: ContinuousClock.Instant?) throws(Failure) -> ServerMessage? {
        guard let (message, line) = try Self.read(from: fd, framer: &framer, buffer: &buffer, before: deadline) else { return nil }
        lastLine = line
        return message
    }

    /// Reads lines from `fd` until one is a message this motionctl knows; nil at `deadline`.
    private static func read(from fd: Int32, framer: inout LineFramer, buffer: inout [UInt8],
                             before deadline: ContinuousClock.Instant?) throws(Failure) -> (message: ServerMessage, line: [UInt8])? {
        while true {
            let line: ArraySlice<UInt8>?
            do {
                line = try framer.nextLine()
            } catch {
                throw .protocolError(ProtocolError(.lineTooLong, "a line from the daemon exceeded \(Wire.maximumLineLength) bytes"))
            }
            if let line {
                do {
                    if let message = try ServerMessage.parse(line: line) { return (message, Array(line)) }
                    continue
                } catch {
                    throw .protocolError(error)
                }
            }
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return nil }
                var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&readable, 1, left.pollTimeout)
                if ready < 0 && errno != EINTR { throw .closed }
                if ready <= 0 { continue }
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else {
                if n < 0 && errno == EINTR { continue }
                throw .closed
            }
            framer.append(buffer[0..<n])
        }
    }

    /// Sends a request and returns its reply (pushed messages before it, and replies to other
    /// ids, are skipped); ``Failure/timedOut(path:waitingFor:seconds:)`` when none comes within
    /// ``replyTimeout``.
    public func request(_ request: ClientRequest) throws(Failure) -> Result<ServerMessage.Reply, ProtocolError> {
        try send(request)
        let deadline = ContinuousClock.now + .seconds(replyTimeout)
        while let message = try next(before: deadline) {
            if case .reply(let id, let result) = message, id == request.id { return result }
        }
        throw .timedOut(path: path, waitingFor: "reply to \(Self.describe(request))", seconds: replyTimeout)
    }

    /// `the status request`, `subscribe accelerometer (id 1)`, for messages.
    private static func describe(_ request: ClientRequest) -> String {
        let id = request.id.map { " (id \($0))" } ?? ""
        switch request {
        case .subscribe(let subscription): return "subscribe \(subscription.stream)\(id)"
        case .unsubscribe(_, let stream): return "unsubscribe \(stream)\(id)"
        case .get(_, let stream, _, _): return "get \(stream)\(id)"
        case .status: return "status\(id)"
        }
    }

    /// Sends a request and returns what its successful reply carries; an error reply throws
    /// ``Failure/denied(_:)`` for `accessDenied` and ``Failure/rejected(_:)`` for the rest.
    public func call(_ request: ClientRequest) throws(Failure) -> ServerMessage.Reply {
        try Self.reply(self.request(request))
    }

    /// Subscribes; returns the interval granted and whether the stream's sensors are present
    /// now. An error reply throws as for ``call(_:)``.
    @discardableResult
    public func subscribe(_ subscription: ClientRequest.Subscription) throws(Failure) -> (interval: Double, available: Bool) {
        guard case .subscribed(let interval, let available, _) = try call(.subscribe(subscription)) else {
            throw .protocolError(ProtocolError(.invalidValue, "the reply to subscribe \(subscription.stream) carries no interval"))
        }
        return (interval, available)
    }

    /// What a successful reply carries; an error reply as ``call(_:)`` throws it.
    public static func reply(_ result: Result<ServerMessage.Reply, ProtocolError>) throws(Failure) -> ServerMessage.Reply {
        switch result {
        case .success(let reply):
            return reply
        case .failure(let error) where error.code == .accessDenied:
            throw .denied(error.message)
        case .failure(let error):
            throw .rejected(error)
        }
    }
}
