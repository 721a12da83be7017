import Dispatch
import Glibc
import MotionSync
import Testing

@Suite("BackgroundThread")
struct BackgroundThreadTests {
    /// The calling thread's name, as the kernel keeps it.
    private static func threadName() -> String? {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: "\n")
    }

    @Test("runs the body once, on a thread of its own with the name given (first 15 bytes)")
    func runsNamed() throws {
        let seen = Lock<(name: String?, thread: pthread_t?, runs: Int)>((nil, nil, 0))
        let done = DispatchSemaphore(value: 0)
        try BackgroundThread.start(name: "test.background.thread") {
            let name = Self.threadName()
            seen.withLock { $0 = (name, pthread_self(), $0.runs + 1) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (name, thread, runs) = seen.withLock { $0 }
        #expect(runs == 1)
        #expect(name == "test.background")
        #expect(thread.map { pthread_equal($0, pthread_self()) == 0 } == true, "not the caller's thread")
    }

    @Test("the thread is detached: many started threads end without anyone joining them")
    func detached() throws {
        let done = DispatchSemaphore(value: 0)
        for index in 0..<64 {
            try BackgroundThread.start(name: "test.\(index)") { done.signal() }
        }
        for _ in 0..<64 { #expect(done.wait(timeout: .now() + 10) == .success) }
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.last == set { text.removeLast() }
        return text
    }
}
