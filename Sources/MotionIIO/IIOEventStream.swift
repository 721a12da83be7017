import Glibc
import MotionSync

/// A device's IIO event descriptor: the anonymous file `IIO_GET_EVENT_FD_IOCTL` hands out on
/// `/dev/iio:deviceN`, from which the kernel's event records (``IIOEvent``) are read.
///
/// The character device is closed again right after the ioctl (the event descriptor lives on
/// without it), so the buffer stays free for a reader; the kernel gives out one event
/// descriptor per device at a time (EBUSY for a second). Events are only queued while it is
/// open, so open it before enabling any. `next` and `close` belong to one thread; `cancel` is
/// safe from any.
public final class IIOEventStream: Sendable {
    /// `_IOR('i', 0x90, int)`: direction read (2) << 30 | size 4 << 16 | 'i' << 8 | 0x90.
    static let getEventFD: UInt = 2 << 30 | 4 << 16 | 0x69 << 8 | 0x90

    public let device: IIODevice
    private let events: Int32
    /// A pipe (read end, write end) that `cancel` makes readable, to end a wait early.
    private let wake: (read: Int32, write: Int32)
    /// The clock of the kernel timestamps (`current_timestamp_clock`), if known.
    private let clock: clockid_t?
    private let closed = Lock(false)

    /// Opens the event descriptor; throws ``MotionWakeupError/eventDescriptor(device:_:)``
    /// when the node cannot be opened or the ioctl is refused (no event interface, or umockdev,
    /// which cannot emulate it).
    public init(device: IIODevice) throws(MotionWakeupError) {
        guard device.context.isLocal else { throw .notLocal(device: device.description) }
        let node = "/dev/\(device.id)"
        let fd = open(node, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .eventDescriptor(device: device.description, IIOError(code: errno, operation: "open \(node)"))
        }
        defer { Glibc.close(fd) }
        var events: Int32 = -1
        guard ioctl(fd, Self.getEventFD, &events) >= 0, events >= 0 else {
            throw .eventDescriptor(device: device.description, IIOError(code: errno, operation: "ioctl IIO_GET_EVENT_FD_IOCTL on \(node)"))
        }
        _ = fcntl(events, F_SETFL, fcntl(events, F_GETFL) | O_NONBLOCK)
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            Glibc.close(events)
            throw .eventDescriptor(device: device.description, IIOError(code: code, operation: "create the wake-up pipe for \(node)"))
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let wake = (read: pipeEnds[0], write: pipeEnds[1])
        self.device = device
        self.events = events
        self.wake = wake
        clock = (try? device.read("current_timestamp_clock")).flatMap(BootClock.clockID(named:))
    }

    deinit {
        close()
    }

    /// Waits up to `timeout` seconds for events and returns those that arrived, oldest first;
    /// empty when the time ran out or ``cancel()`` was called.
    public func next(timeout: Double) throws(MotionWakeupError) -> [IIOEvent] {
        guard !closed.withLock({ $0 }) else {
            throw .read(device: device.description, IIOError(code: EBADF, operation: "wait on the closed event descriptor of \(device)"))
        }
        var fds = [pollfd(fd: events, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        var rc: Int32
        repeat {
            rc = poll(&fds, 2, Int32((timeout * 1000).rounded(.up)))
        } while rc < 0 && errno == EINTR
        guard rc >= 0 else { throw .read(device: device.description, IIOError(code: errno, operation: "poll the events of \(device)")) }
        if fds[1].revents & Int16(POLLIN) != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            _ = drain.withUnsafeMutableBytes { read(wake.read, $0.baseAddress, $0.count) }
            return []
        }
        guard fds[0].revents & Int16(POLLIN) != 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: IIOEvent.size * 64)
        let n = bytes.withUnsafeMutableBytes { read(events, $0.baseAddress, $0.count) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return [] }
        guard n >= 0 else { throw .read(device: device.description, IIOError(code: errno, operation: "read the events of \(device)")) }
        let arrival = BootClock.now()
        // The offset is taken per read: realtime steps, and monotonic misses suspends.
        let offset = clock.map(BootClock.offset(from:))
        return bytes.withUnsafeBytes { raw in
            stride(from: 0, to: n - n % IIOEvent.size, by: IIOEvent.size).map { start in
                IIOEvent(record: UnsafeRawBufferPointer(rebasing: raw[start..<start + IIOEvent.size]), clockOffset: offset, arrival: arrival)
            }
        }
    }

    /// Makes a waiting or the next ``next(timeout:)`` return at once (empty); any thread.
    public func cancel() {
        closed.withLock { closed in
            var byte: UInt8 = 1
            if !closed { _ = write(wake.write, &byte, 1) }
        }
    }

    /// Closes the descriptors; later calls do nothing.
    public func close() {
        closed.withLock { closed in
            guard !closed else { return }
            Glibc.close(events)
            Glibc.close(wake.read)
            Glibc.close(wake.write)
            closed = true
        }
    }
}
