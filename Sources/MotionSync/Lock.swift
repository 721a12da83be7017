import Glibc

/// A value that threads share behind a POSIX mutex: ``withLock(_:)`` is the only way to it, so
/// the compiler checks its use exactly as it checks the standard library's `Mutex` (the value
/// goes in and out as `sending`).
///
/// Why not `Synchronization.Mutex`: on Linux a contended `Mutex` waits in the kernel (a futex)
/// in code ThreadSanitizer does not see, so every contended lock reads as a data race in
/// `make check-tsan` and the sanitizer could no longer tell a real race from a lock. TSan
/// understands pthread mutexes. Uncontended, both cost one atomic operation each way.
public final class Lock<Value: ~Copyable>: @unchecked Sendable {
    // `@unchecked`: `value` is only ever touched between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` of `mutex` (in `withLock`), and only as `sending`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
