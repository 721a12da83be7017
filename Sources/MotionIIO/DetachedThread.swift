import Dispatch
import Glibc

/// A named, detached POSIX thread running one closure: what a buffered reader blocks in
/// (Foundation's `Thread`, which the daemon does not link).
enum DetachedThread {
    /// Starts `body` on a new thread named `name` (the kernel keeps the first 15 bytes).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let result = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.nameThread()
            body.run()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
        guard result == 0 else {
            // No thread to be had (resource limits): run it on a Dispatch worker instead.
            let body = Unmanaged<Body>.fromOpaque(box).takeRetainedValue()
            DispatchQueue.global().async { body.run() }
            return
        }
    }

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
