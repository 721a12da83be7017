import Glibc
import MotionToolSupport

/// `count` subscribed connections, read from this thread only through one epoll set. Lines are
/// split in the read buffer; of each line only the type and the one number needed are looked
/// at (no JSON parsing).
final class ClientSet {
    private var fds: [Int32] = []
    /// The unterminated end of the last read, per client.
    private var partial: [[UInt8]]
    private let epoll: Epoll
    private let buffer: UnsafeMutablePointer<UInt8>
    private static let bufferSize = 1 << 18
    private var recording = false

    /// deviceMotion lines per client, and their latencies (seconds), while recording.
    private(set) var received: [Int]
    private(set) var latencies: [Double] = []
    /// `dropped` messages and the samples they report, while recording; before it, the
    /// samples reported during the warm-up.
    private(set) var dropReports = 0
    private(set) var droppedSamples = 0
    private(set) var droppedBeforeRecording = 0
    private(set) var accepted = 0
    private(set) var refusals: [String] = []
    private(set) var goodbyes: [String] = []
    private(set) var disconnected = 0

    init(count: Int, path: String, request: [UInt8]) throws {
        partial = Array(repeating: [], count: count)
        received = Array(repeating: 0, count: count)
        epoll = try Epoll()
        buffer = .allocate(capacity: Self.bufferSize)
        do {
            for index in 0..<count {
                let fd: Int32
                do {
                    fd = try DaemonConnection.connectSocket(path: path)
                } catch {
                    guard case .unreachable(_, let reason) = error else { throw error }
                    throw BenchError("connect to \(path): \(reason)")
                }
                fds.append(fd)
                let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == request.count else { throw BenchError("client \(index + 1): send: \(String(cString: strerror(errno)))") }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                try epoll.add(fd, tag: index)
            }
        } catch {
            closeAll()
            throw error
        }
        latencies.reserveCapacity(Int(Double(count) * 100 * 12))
    }

    deinit {
        closeAll()
        buffer.deallocate()
    }

    /// Counts from now on go into the results.
    func startRecording() {
        recording = true
        dropReports = 0
        droppedBeforeRecording = droppedSamples
        droppedSamples = 0
        received = Array(repeating: 0, count: received.count)
        latencies.removeAll(keepingCapacity: true)
    }

    func closeAll() {
        for fd in fds where fd >= 0 { close(fd) }
        fds = []
        epoll.close()
    }

    /// Reads whatever arrives for `seconds`.
    func pump(for seconds: Double) throws {
        let deadline = BenchClock.monotonic() + seconds
        while true {
            let left = deadline - BenchClock.monotonic()
            if left <= 0 { return }
            for client in try epoll.wait(milliseconds: Int32(min(100, (left * 1000).rounded(.up)))) { readAll(client) }
        }
    }

    /// Reads one client until the socket is empty (level-triggered: once is fair, but a full
    /// buffer means more is waiting).
    private func readAll(_ client: Int) {
        let fd = fds[client]
        while true {
            let count = read(fd, buffer, Self.bufferSize)
            if count > 0 {
                lines(BenchClock.boot(), client, count)
                if count < Self.bufferSize { return }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            // End of file or an error: the daemon let go of this client.
            epoll.remove(fd)
            disconnected += 1
            return
        }
    }

    /// Splits `count` bytes just read into lines; `now` is when they were read (boot clock).
    private func lines(_ now: Double, _ client: Int, _ count: Int) {
        var start = 0
        if !partial[client].isEmpty {
            guard let end = memchr(buffer, 0x0A, count) else {
                partial[client].append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
                return
            }
            let newline = end.assumingMemoryBound(to: UInt8.self) - buffer
            // The line's newline goes along: it ends the number parsers on every line.
            partial[client].append(contentsOf: UnsafeBufferPointer(start: buffer, count: newline + 1))
            let line = partial[client]
            partial[client].removeAll(keepingCapacity: true)
            line.withUnsafeBufferPointer { handle($0.baseAddress!, $0.count - 1, client, now) }
            start = newline + 1
        }
        while start < count {
            guard let end = memchr(buffer + start, 0x0A, count - start) else {
                partial[client].append(contentsOf: UnsafeBufferPointer(start: buffer + start, count: count - start))
                return
            }
            let newline = end.assumingMemoryBound(to: UInt8.self) - buffer
            handle(buffer + start, newline - start, client, now)
            start = newline + 1
        }
    }

    private static let deviceMotion = Array(#"{"type":"deviceMotion""#.utf8)
    private static let timestamp = Array(#""timestamp":"#.utf8)
    private static let dropped = Array(#"{"type":"dropped""#.utf8)
    private static let droppedCount = Array(#""count":"#.utf8)
    private static let reply = Array(#"{"type":"reply""#.utf8)
    private static let replyOK = Array(#""ok":true"#.utf8)
    private static let goodbye = Array(#"{"type":"goodbye""#.utf8)

    /// One line of `length` bytes (followed in memory by its newline).
    private func handle(_ line: UnsafePointer<UInt8>, _ length: Int, _ client: Int, _ now: Double) {
        if Self.starts(line, length, Self.deviceMotion) {
            // The timestamp comes right after the type; search a little way in.
            guard recording, let at = Self.find(Self.timestamp, line, min(length, 96)),
                  let text = Self.number(line, length, at: at) else { return }
            latencies.append(now - strtod(text, nil))
            received[client] += 1
        } else if Self.starts(line, length, Self.dropped) {
            if recording { dropReports += 1 }
            if let at = Self.find(Self.droppedCount, line, length), let text = Self.number(line, length, at: at) {
                droppedSamples += strtol(text, nil, 10)
            }
        } else if Self.starts(line, length, Self.reply) {
            if Self.find(Self.replyOK, line, length) != nil {
                accepted += 1
            } else {
                refusals.append(String(decoding: UnsafeBufferPointer(start: line, count: length), as: UTF8.self))
            }
        } else if Self.starts(line, length, Self.goodbye) {
            goodbyes.append(String(decoding: UnsafeBufferPointer(start: line, count: length), as: UTF8.self))
        }
    }

    private static func starts(_ line: UnsafePointer<UInt8>, _ length: Int, _ prefix: [UInt8]) -> Bool {
        length >= prefix.count && prefix.withUnsafeBufferPointer { memcmp(line, $0.baseAddress!, prefix.count) == 0 }
    }

    /// The offset just past `needle` in the first `length` bytes of `line`.
    private static func find(_ needle: [UInt8], _ line: UnsafePointer<UInt8>, _ length: Int) -> Int? {
        guard length >= needle.count else { return nil }
        return needle.withUnsafeBufferPointer { needle in
            for offset in 0...(length - needle.count) where line[offset] == needle[0] {
                if memcmp(line + offset, needle.baseAddress!, needle.count) == 0 { return offset + needle.count }
            }
            return nil
        }
    }

    /// The C string of the number at `offset`, if one starts there (strtod and strtol would
    /// skip whitespace, even the line's newline).
    private static func number(_ line: UnsafePointer<UInt8>, _ length: Int, at offset: Int) -> UnsafePointer<CChar>? {
        guard offset < length, (line[offset] >= 0x30 && line[offset] <= 0x39) || line[offset] == 0x2D else { return nil }
        return UnsafeRawPointer(line + offset).assumingMemoryBound(to: CChar.self)
    }
}
