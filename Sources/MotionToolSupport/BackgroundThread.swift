import Glibc

/// A detached POSIX thread for work that blocks in read(2) (a pipe, a file that grows, the
/// daemon's socket), so Swift concurrency's few cooperative threads never wait on it. A plain
/// thread rather than a Dispatch queue: it sleeps in the kernel between reads and nothing
/// wakes the process on its behalf.
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
