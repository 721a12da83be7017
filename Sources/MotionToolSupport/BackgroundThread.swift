import Glibc

/// A detached POSIX thread for work that blocks in read(2) or sigwait (a pipe, a file that
/// grows, the daemon's socket, a signal). A plain thread rather than a Dispatch queue or a Swift
/// concurrency task: it sleeps in the kernel between reads, and no worker pool (whose monitor
/// libdispatch wakes every second) is started on its behalf.
public enum BackgroundThread {
    /// Why no thread was started: the system's reason (`Resource temporarily unavailable`).
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `body` once on a new thread; throws (and nothing runs) when the system has no
    /// thread to give.
    public static func start(_ body: @escaping @Sendable () -> Void) throws(Unavailable) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw Unavailable(description: String(cString: strerror(result)))
        }
        pthread_detach(thread)
    }

    /// The closure, carried through pthread_create's context pointer.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
