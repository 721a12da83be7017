import Glibc

/// A file that must be a regular file (a trace, the saved engine state), opened for reading
/// without ever waiting on whatever else stands at its path: a FIFO, whose plain open waits for
/// a writer; a device such as `/dev/zero`, which never ends; a directory. Each is refused as
/// ``Problem/notRegularFile``, which is what is wrong with it (Foundation's refusal of one says
/// "Permission denied", which misleads).
public enum RegularFile {
    /// Why a file could not be opened or read.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case notRegularFile
        /// A system call failed (described as the system describes its error number).
        case system(SystemError)

        public var description: String {
            switch self {
            case .notRegularFile: return "not a regular file"
            case .system(let error): return "\(error)"
            }
        }
    }

    /// A descriptor open for reading `path` (blocking reads, close-on-exec), or why not.
    public static func open(_ path: String) throws(Problem) -> Int32 {
        // O_NONBLOCK only for the open: a FIFO's would wait for a writer. A regular file's reads
        // ignore it; it is cleared all the same.
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .system(.last()) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError.last()
            close(fd)
            throw .system(error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .notRegularFile
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Every byte of `path`.
    public static func contents(of path: String) throws(Problem) -> [UInt8] {
        let fd = try open(path)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(.last())
            }
            bytes += chunk[..<count]
        }
    }
}
