import Glibc
import MotionSync
import MotionToolSupport

/// Tells the live loop when the lock file may have come or gone: inotify on the file's
/// directory (created, deleted, renamed in or out), read on a thread of its own, so the helper
/// sleeps while nothing happens there. Where the directory cannot be watched (it does not exist
/// yet, or it went away), it looks every ``pollInterval`` seconds instead, and watches again as
/// soon as it can. Each sign posts a ``RotationInput/tick(at:)``; the controller looks at the
/// file itself.
enum LockFileWatch {
    /// How often the directory is looked at while it cannot be watched (seconds).
    static let pollInterval = 1.0

    static func start(path: String, clock: ElapsedClock, into inbox: RotationInbox) throws(SystemError) {
        let slash = path.lastIndex(of: "/")
        let name = String(slash.map { path[path.index(after: $0)...] } ?? path[...])
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        try BackgroundThread.start(name: "lock-file") {
            let events = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
            let fd = inotify_init1(Int32(IN_CLOEXEC))
            var watching: Bool?
            while true {
                if fd >= 0 && inotify_add_watch(fd, directory, events) >= 0 {
                    if watching == false { Log.info("watching \(directory) for \(name) again") }
                    watching = true
                    // It may have come or gone while it was not watched.
                    inbox.post(.tick(at: clock.now))
                    follow(fd, name: name, clock: clock, into: inbox)
                } else if watching != false {
                    Log.warning("cannot watch \(directory) for the lock file \(name) (\(SystemError.last())): looking every \(Int(pollInterval)) s")
                    watching = false
                }
                usleep(useconds_t(pollInterval * 1_000_000))
                inbox.post(.tick(at: clock.now))
            }
        }
    }

    /// Reads inotify events until the directory's watch ends (IN_IGNORED: the directory was
    /// removed or renamed away) or the descriptor fails; each event naming `name` is a tick.
    private static func follow(_ fd: Int32, name: String, clock: ElapsedClock, into inbox: RotationInbox) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of
            // NUL-padded name.
            while offset + 16 <= count {
                let (mask, length) = buffer.withUnsafeBytes {
                    ($0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self), Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let named = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_IGNORED) != 0 { return }
                if String(decoding: named, as: UTF8.self) == name { inbox.post(.tick(at: clock.now)) }
            }
        }
    }
}
