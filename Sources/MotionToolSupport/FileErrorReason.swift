import FoundationEssentials
import Glibc
import MotionSync

/// The system's words for why a file could not be read or written (`No such file or
/// directory`, `Permission denied`), taken from the POSIX error under a FoundationEssentials
/// file error; other errors as they describe themselves.
public func fileErrorReason(_ error: any Error) -> String {
    if let posix = (error as? CocoaError)?.userInfo["NSUnderlyingError"] as? POSIXError {
        return SystemError(posix.code.rawValue).reason
    }
    return "\(error)"
}
