import Glibc

/// A named, detached POSIX thread running one closure: for work that blocks in the kernel (a
/// buffered IIO read, poll on a pipe, read(2) on a socket or a file that grows, sigwait). A
/// plain thread rather than a Dispatch queue or a Swift concurrency task: it sleeps in the
/// kernel between reads, and no worker pool (whose monitor libdispatch wakes every second,
/// docs/PERFORMANCE.md) is started on its behalf. When the system has no thread to give, the
/// caller learns it and nothing runs: there is no fallback onto a shared pool.
public enum BackgroundThread {
    /// Runs `body` once on a new thread named `name` (the kernel keeps its first 15 bytes, as
    /// `/proc/<pid>/task/<tid>/comm` shows). Throws the system's reason (`Resource temporarily
    /// unavailable`) when no thread could be created; `body` then never runs.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let context = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let result = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.nameThread()
            body.run()
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemError(result)
        }
    }

    /// The closure and the thread's name, carried through pthread_create's context pointer.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void

        init(name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }

        /// Names the calling thread (pthread_setname_np needs _GNU_SOURCE, which Glibc's
        /// module does not define; /proc is the same interface).
        func nameThread() {
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            let bytes = Array(name.utf8.prefix(15))
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
    }
}
