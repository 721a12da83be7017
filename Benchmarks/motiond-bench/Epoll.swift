import Glibc

/// An epoll set whose events carry a tag (the client's index). Glibc's Swift module does not
/// export <sys/epoll.h>, so the three calls are looked up in libc by name and `struct
/// epoll_event` is laid out by hand: packed on x86-64 (12 bytes), naturally aligned elsewhere.
final class Epoll {
    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    #if arch(x86_64)
    private static let eventSize = 12, dataOffset = 4
    #else
    private static let eventSize = 16, dataOffset = 8
    #endif
    private static let epollIn: UInt32 = 0x001
    private static let controlAdd: Int32 = 1, controlDelete: Int32 = 2
    private static let capacity = 1024

    private let control: Control
    private let waitCall: Wait
    private var fd: Int32
    private let events: UnsafeMutableRawPointer
    private var ready: [Int] = []

    init() throws {
        guard let libc = dlopen(nil, RTLD_NOW), let create = dlsym(libc, "epoll_create1"),
              let control = dlsym(libc, "epoll_ctl"), let wait = dlsym(libc, "epoll_wait") else {
            throw BenchError("epoll is not available")
        }
        self.control = unsafeBitCast(control, to: Control.self)
        waitCall = unsafeBitCast(wait, to: Wait.self)
        fd = unsafeBitCast(create, to: Create.self)(O_CLOEXEC)
        guard fd >= 0 else { throw BenchError("epoll_create1: \(String(cString: strerror(errno)))") }
        events = .allocate(byteCount: Self.capacity * Self.eventSize, alignment: 8)
    }

    deinit {
        close()
        events.deallocate()
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Watches `descriptor` for input (level-triggered).
    func add(_ descriptor: Int32, tag: Int) throws {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.epollIn, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt64(tag), toByteOffset: Self.dataOffset, as: UInt64.self)
        }
        let result = event.withUnsafeMutableBytes { control(fd, Self.controlAdd, descriptor, $0.baseAddress) }
        guard result == 0 else { throw BenchError("epoll_ctl: \(String(cString: strerror(errno)))") }
    }

    func remove(_ descriptor: Int32) {
        _ = control(fd, Self.controlDelete, descriptor, nil)
    }

    /// The tags of the descriptors ready to read, waiting up to `milliseconds`.
    func wait(milliseconds: Int32) throws -> [Int] {
        ready.removeAll(keepingCapacity: true)
        let count = waitCall(fd, events, Int32(Self.capacity), milliseconds)
        if count < 0 {
            if errno == EINTR { return [] }
            throw BenchError("epoll_wait: \(String(cString: strerror(errno)))")
        }
        for n in 0..<Int(count) {
            ready.append(Int(events.loadUnaligned(fromByteOffset: n * Self.eventSize + Self.dataOffset, as: UInt64.self)))
        }
        return ready
    }
}
