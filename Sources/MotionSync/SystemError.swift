import Glibc

/// A failed system call: its error number (errno) and, when the caller names it, what was being
/// done. Described as the system describes the number (`No such file or directory`), after the
/// operation when there is one (`bind /run/motiond/motiond.sock: Address already in use`).
///
/// The one error type for failed system calls, in the manner of swift-system's `Errno`: callers
/// keep the number (to test `code == ENOENT`) and never spell `strerror` themselves.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The positive error number (libraries that return `-errno`, such as sd-bus and uinput
    /// ioctls, are taken either way).
    public let code: Int32
    /// What failed, e.g. `bind /run/motiond/motiond.sock`; nil when the caller says it itself.
    public let operation: String?

    /// The error `code` (positive or negated), from `operation` if given.
    public init(_ code: Int32, _ operation: String? = nil) {
        self.code = code < 0 ? -code : code
        self.operation = operation
    }

    /// The error the calling thread's last failed system call left in `errno`.
    public static func last(_ operation: String? = nil) -> SystemError {
        SystemError(errno, operation)
    }

    /// The system's words for the error number (`Permission denied`).
    public var reason: String { String(cString: strerror(code)) }

    public var description: String { operation.map { "\($0): \(reason)" } ?? reason }
}
