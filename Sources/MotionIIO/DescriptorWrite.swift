import Glibc

/// Writes all of a buffer to a file descriptor, as many `write` calls as it takes (a short
/// write goes on where it stopped, EINTR is retried): 0 when everything went, else the errno of
/// the write that failed. The daemon's standard output, its state file and standard error
/// taken over from libiio (``LibraryOutput``) all write this way.
public func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    var offset = 0
    while offset < bytes.count {
        let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if n > 0 {
            offset += n
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return n < 0 ? errno : EIO
        }
    }
    return 0
}
