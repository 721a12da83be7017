import Glibc

/// An open evdev node (`/dev/input/eventN`): the current value of an absolute axis
/// (`EVIOCGABS`), the state of the switches (`EVIOCGSW`), and the `input_event` records read
/// from it. Opened read-only and non-blocking; closed on deinit. One thread uses it at a time.
final class EvdevDevice {
    /// The node, e.g. `/dev/input/event4`.
    let node: String
    /// The open descriptor, for `poll`.
    let fd: Int32

    /// `EV_SYN`, the event type of the kernel's markers, and its code `SYN_DROPPED`: events
    /// were lost (the queue overflowed), states must be asked for again.
    static let synchronization: UInt16 = 0x00
    static let dropped: UInt16 = 0x03
    /// `EV_SW`, the event type of switches.
    static let switchEvent: UInt16 = 0x05
    /// `SW_FRONT_PROXIMITY`, the switch of a proximity sensor on the front (an input proximity
    /// sensor, e.g. a phone's near the earpiece).
    static let frontProximity = 0x0b
    /// `ABS_X`, `ABS_Y`, `ABS_Z`.
    static let axes: [UInt] = [0x00, 0x01, 0x02]

    /// `_IOC(_IOC_READ, 'E', nr, size)`: direction read (2) << 30 | size << 16 | 'E' << 8 | nr.
    private static func read(_ nr: UInt, size: Int) -> UInt { 2 << 30 | UInt(size) << 16 | 0x45 << 8 | nr }
    /// `EVIOCGABS(axis)`, filling a `struct input_absinfo` (value, minimum, maximum, fuzz, flat,
    /// resolution: six 32-bit integers).
    static func getAbsolute(_ axis: UInt) -> UInt { read(0x40 + axis, size: 6 * 4) }
    /// `EVIOCGSW(length)`, filling a bitmask of the switches that are on.
    static func getSwitches(length: Int) -> UInt { read(0x1b, size: length) }
    /// Bytes of a `struct input_event` on this ABI: the time (two longs), type and code (16 bits
    /// each), value (32 bits).
    static let eventSize = 2 * MemoryLayout<Int>.size + 8
    /// Bytes of the switch bitmask asked for: `SW_MAX` (0x10) + 1 bits fit in 32; the kernel
    /// copies as many bytes as asked for.
    private static let switchBytes = 4

    /// One `input_event`.
    struct Event: Equatable {
        var type: UInt16
        var code: UInt16
        var value: Int32
    }

    init(node: String) throws(IIOError) {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw IIOError(code: errno, operation: "open \(node)") }
        self.node = node
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// The current value of absolute axis `axis` (`ABS_X` …).
    func absoluteValue(_ axis: UInt) throws(IIOError) -> Int32 {
        var info = [Int32](repeating: 0, count: 6)
        guard info.withUnsafeMutableBytes({ ioctl(fd, Self.getAbsolute(axis), $0.baseAddress!) }) >= 0 else {
            throw IIOError(code: errno, operation: "ioctl EVIOCGABS(\(axis)) on \(node)")
        }
        return info[0]
    }

    /// Whether switch `code` (`SW_FRONT_PROXIMITY` …) is on.
    func isSwitchOn(_ code: Int) throws(IIOError) -> Bool {
        var bits: UInt32 = 0
        guard withUnsafeMutableBytes(of: &bits, { ioctl(fd, Self.getSwitches(length: Self.switchBytes), $0.baseAddress!) }) >= 0 else {
            throw IIOError(code: errno, operation: "ioctl EVIOCGSW on \(node)")
        }
        return bits & (1 << code) != 0
    }

    /// The events queued now (none when nothing is: the node is non-blocking). A short read
    /// (never seen from evdev, which hands out whole events) ends the batch.
    func pendingEvents() throws(IIOError) -> [Event] {
        var events: [Event] = []
        var record = [UInt8](repeating: 0, count: Self.eventSize * 16)
        while true {
            let count = record.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { return events }
                throw IIOError(code: errno, operation: "read \(node)")
            }
            let whole = count / Self.eventSize
            for index in 0..<whole {
                events.append(Self.decode(record[(index * Self.eventSize)...]))
            }
            if count < record.count { return events }
        }
    }

    /// The type, code and value of an `input_event` starting at `bytes`' first index.
    static func decode(_ bytes: ArraySlice<UInt8>) -> Event {
        let time = 2 * MemoryLayout<Int>.size
        return bytes.withUnsafeBytes { raw in
            Event(type: raw.loadUnaligned(fromByteOffset: time, as: UInt16.self),
                  code: raw.loadUnaligned(fromByteOffset: time + 2, as: UInt16.self),
                  value: raw.loadUnaligned(fromByteOffset: time + 4, as: Int32.self))
        }
    }
}
