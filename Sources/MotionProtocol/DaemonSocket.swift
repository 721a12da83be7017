import Glibc
import MotionSync

/// Connecting to motiond's Unix socket: shared by the client library and the tools.
public enum DaemonSocket {
    /// The socket to use: `path`, else `$MOTIOND_SOCKET`, else `/run/motiond/motiond.sock`.
    public static func path(_ path: String?) -> String {
        if let path { return path }
        if let variable = getenv("MOTIOND_SOCKET"), variable.pointee != 0 { return String(cString: variable) }
        return Wire.defaultSocketPath
    }

    /// A connected, blocking, close-on-exec stream socket to `path`; the caller owns it.
    /// Throws a sentence saying why not (no such file, connection refused, …). A connection
    /// waits while the listener's queue of pending connections is full (a stopped or hung
    /// daemon): with `timeout`, for at most that many seconds.
    public static func connect(path: String, timeout: Double? = nil) throws(Refusal) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Refusal(reason: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Refusal(reason: "socket: \(SystemError.last())") }
        // A Unix stream connect waits for room in the listener's queue for the send timeout.
        if let timeout { setSendTimeout(fd, timeout) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = timeout != nil && errno == EAGAIN
                ? "its queue of pending connections stayed full for \(timeout!) s (is it stopped or hung?)"
                : SystemError.last().reason
            close(fd)
            throw Refusal(reason: reason)
        }
        if timeout != nil { setSendTimeout(fd, 0) }
        return fd
    }

    /// SO_SNDTIMEO: `seconds`, 0 for none.
    private static func setSendTimeout(_ fd: Int32, _ seconds: Double) {
        let whole = seconds.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Why a connection could not be made.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }
}
