import Foundation
import Glibc
import MotionProtocol

/// A blocking connection to a running motiond for motionctl's daemon commands: sends requests,
/// reads the daemon's messages one line at a time.
final class DaemonConnection {
    private let fd: Int32
    private var framer = LineFramer()
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// Why talking to the daemon failed; the exit code tells scripts which.
    enum Failure: Error, CustomStringConvertible {
        case unreachable(path: String, reason: String)
        case closed
        case protocolError(ProtocolError)
        /// The daemon's access policy refused this user (the message says why).
        case denied(String)

        var description: String {
            switch self {
            case .unreachable(let path, let reason): return "cannot reach motiond at \(path): \(reason) (is it running? --socket PATH)"
            case .closed: return "motiond closed the connection"
            case .protocolError(let error): return "motiond sent something this motionctl cannot read: \(error)"
            case .denied(let why): return "motiond refuses this user: \(why)"
            }
        }

        /// EX_UNAVAILABLE when the daemon is not there, EX_PROTOCOL when it speaks another
        /// language, EX_NOPERM when its access policy says no.
        var exitCode: Int32 {
            switch self {
            case .unreachable, .closed: return 69
            case .protocolError: return 76
            case .denied: return 77
            }
        }
    }

    /// Connects and reads the hello, retrying for up to `wait` seconds while nobody listens.
    convenience init(path: String, wait: Double) throws(Failure) {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            do {
                try self.init(path: path)
                return
            } catch {
                guard case .unreachable = error, Date() < deadline else { throw error }
                usleep(100_000)
            }
        }
    }

    /// Connects and reads the hello.
    init(path: String) throws(Failure) {
        fd = try Self.connectSocket(path: path)
        switch try next() {
        case .hello:
            break
        case .reply(nil, .failure(let error)) where error.code == .accessDenied:
            throw .denied(error.message)
        default:
            throw .protocolError(ProtocolError(.invalidValue, "the first message was not a hello"))
        }
    }

    /// A blocking, close-on-exec connection to the Unix socket at `path`, nothing read or sent
    /// yet; the caller owns the descriptor. Also the daemon benchmark's way in for each client.
    static func connectSocket(path: String) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .unreachable(path: path, reason: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(path: path, reason: "socket: \(String(cString: strerror(errno)))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .unreachable(path: path, reason: reason)
        }
        return fd
    }

    deinit { close(fd) }

    func send(_ request: ClientRequest) throws(Failure) {
        let bytes = Array((request.json + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw .closed }
            offset += n
        }
    }

    /// The next message the daemon sends (unknown message types skipped); blocks.
    func next() throws(Failure) -> ServerMessage {
        while true {
            let line: ArraySlice<UInt8>?
            do {
                line = try framer.nextLine()
            } catch {
                throw .protocolError(ProtocolError(.lineTooLong, "a line from the daemon exceeded \(Wire.maximumLineLength) bytes"))
            }
            if let line {
                do {
                    if let message = try ServerMessage.parse(line: line) { return message }
                    continue
                } catch {
                    throw .protocolError(error)
                }
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else {
                if n < 0 && errno == EINTR { continue }
                throw .closed
            }
            framer.append(buffer[0..<n])
        }
    }

    /// Sends a request and returns its reply (pushed messages before it are skipped).
    func request(_ request: ClientRequest) throws(Failure) -> Result<ServerMessage.Reply, ProtocolError> {
        try send(request)
        while true {
            if case .reply(let id, let result) = try next(), id == request.id { return result }
        }
    }
}
