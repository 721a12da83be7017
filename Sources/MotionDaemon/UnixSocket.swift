// sd-daemon.h includes <sys/socket.h>: once CSystemd is in the module, whole-module builds
// take SOCK_STREAM and friends from it rather than from Glibc.
import CSystemd
import Glibc
import MotionSync

/// Who is on the other end of a connection, as the kernel saw it at connect: process, user,
/// group and supplementary groups (SO_PEERCRED, SO_PEERGROUPS).
struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
    var groups: [UInt32] = []

    var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// Whether the peer's primary or a supplementary group is `group`.
    func isMember(of group: gid_t) -> Bool {
        gid == group || groups.contains(group)
    }
}

/// `struct ucred` (which Glibc exports only under _GNU_SOURCE).
private struct UCred {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Thin wrappers over the stream Unix socket calls the server needs.
enum UnixSocket {
    /// Creates, binds and listens on `path` (non-blocking, close-on-exec). A stale socket file
    /// left by a daemon that died is replaced; a live one (something accepts connections) is
    /// an error, as is any other kind of file. The parent directory is created if missing.
    static func listen(path: String) throws(SystemError) -> Int32 {
        var address = try self.address(path)
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty, access(parent, F_OK) != 0, mkdir(parent, 0o755) != 0, errno != EEXIST {
            throw SystemError.last("create directory \(parent)")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw SystemError(EEXIST, "listen on (not a socket) \(path)") }
            if isListening(path) { throw SystemError(EADDRINUSE, "listen on (another daemon is serving it) \(path)") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket for \(path)") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw SystemError(code, "bind \(path)")
        }
        guard Glibc.listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            throw SystemError(code, "listen on \(path)")
        }
        return fd
    }

    /// Connects to `path` (blocking); for clients and the stale-socket check.
    static func connect(path: String) throws(SystemError) -> Int32 {
        var address = try self.address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.last("socket for \(path)") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw SystemError(code, "connect to \(path)")
        }
        return fd
    }

    private static func isListening(_ path: String) -> Bool {
        guard let fd = try? connect(path: path) else { return false }
        close(fd)
        return true
    }

    private static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw SystemError(ENAMETOOLONG, "use (path too long for a Unix socket) \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// The peer's process, user, group and supplementary groups, as the kernel saw them at
    /// connect (SO_PEERCRED; SO_PEERGROUPS, whose absence leaves the groups empty).
    static func peerCredentials(_ fd: Int32) -> PeerCredentials? {
        var ucred = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &ucred, &length) == 0 else { return nil }
        var credentials = PeerCredentials(pid: ucred.pid, uid: ucred.uid, gid: ucred.gid)
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var size = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            if getsockopt(fd, SOL_SOCKET, Self.peerGroupsOption, &groups, &size) == 0 {
                credentials.groups = Array(groups.prefix(Int(size) / MemoryLayout<gid_t>.size))
                break
            }
            // ERANGE: `size` says how much the list needs.
            guard errno == ERANGE, Int(size) > groups.count * MemoryLayout<gid_t>.size else { break }
            groups = [gid_t](repeating: 0, count: Int(size) / MemoryLayout<gid_t>.size)
        }
        return credentials
    }

    /// SO_PEERGROUPS (Linux 4.13), which Glibc's module does not export.
    private static let peerGroupsOption: Int32 = 59

    /// Accepts one pending connection, non-blocking and close-on-exec; nil with errno set when
    /// there is none or it failed.
    static func accept(_ listener: Int32) -> Int32? {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
