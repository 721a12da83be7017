import MotionSync
import Foundation
import Glibc
import MotionProtocol
import Testing
@testable import TestSupport

/// A client speaking the raw protocol to a running `motiond`: it writes request lines and
/// reads JSON lines, nothing more (the daemon under test must stand on its own). Reading
/// suspends between polls, so waiting never blocks the shared test threads.
// @unchecked: a client is used by one test task at a time (never read from two at once).
final class SocketClient: @unchecked Sendable {
    let fd: Int32
    private var pending: [UInt8] = []
    private(set) var closedByPeer = false
    /// The close came as a reset (ECONNRESET), not an end of file.
    private(set) var resetByPeer = false

    /// Connects to `path`, retrying until the daemon listens or `timeout` seconds pass.
    init(path: String, timeout: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8))
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                self.fd = fd
                return
            }
            close(fd)
            guard Date() < deadline else { throw TestFailure("cannot connect to \(path): \(String(cString: strerror(errno)))") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    deinit { close(fd) }

    /// Sends raw bytes (all of them: waits while the socket buffer is full, reading what
    /// arrives meanwhile, as a client must: the daemon stops reading the requests of a client
    /// that leaves its replies unread, and a client that only writes would then wait forever).
    /// Throws when the daemon takes nothing for `timeout` seconds.
    func send(bytes: [UInt8], timeout: Double = 30) async throws {
        var offset = 0
        var deadline = Date().addingTimeInterval(timeout)
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
                deadline = Date().addingTimeInterval(timeout)
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard Date() < deadline else { throw TestFailure("send: the daemon took nothing for \(timeout) s") }
                while receive() {}
                try await Task.sleep(for: .milliseconds(5))
            } else {
                throw TestFailure("send failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    func send(_ line: String) async throws {
        try await send(bytes: Array((line + "\n").utf8))
    }

    func send(_ request: ClientRequest) async throws {
        try await send(request.json)
    }

    /// Shuts down the sending side (a half-close): the daemon sees the end of the requests.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The next JSON line, or nil when none arrives within `timeout` seconds or the daemon
    /// closed the connection.
    func next(timeout: Double = 5) async throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = takeLine() { return try Self.object(line) }
            if closedByPeer || Date() >= deadline { return nil }
            if !receive() { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    /// The complete lines that have arrived by now, raw, without waiting.
    func availableLines() -> [[UInt8]] {
        while receive() {}
        var lines: [[UInt8]] = []
        while let line = takeLine() { lines.append(line) }
        return lines
    }

    /// A line as the JSON object it must be.
    static func object(_ line: [UInt8]) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(String(decoding: line, as: UTF8.self))")
        }
        return object
    }

    private func takeLine() -> [UInt8]? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = Array(pending[..<newline])
        pending.removeFirst(newline + 1)
        return line
    }

    /// The next message of `type` (others are skipped), or nil on timeout.
    func next(type: String, timeout: Double = 5) async throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while let message = try await next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message["type"] as? String == type { return message }
        }
        return nil
    }

    /// The daemon's hello, or nil after `timeout` s: it comes as soon as the connection is
    /// accepted, so the wait is long only for a machine under load (CI's tiers run side by side).
    func hello(timeout: Double = 20) async throws -> [String: Any]? {
        try await next(type: "hello", timeout: timeout)
    }

    /// The reply with `id` (pushes before it are skipped), or nil after `timeout` s. Every
    /// request is answered at once, so like the hello the wait is long only for a machine under
    /// load (CI once took over 5 s for a subscribe's reply while its end-to-end suites started).
    func reply(_ id: Int, timeout: Double = 20) async throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while let message = try await next(type: "reply", timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message["id"] as? Int == id { return message }
        }
        return nil
    }

    /// Every message arriving within `seconds`.
    func collect(for seconds: Double) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        var messages: [[String: Any]] = []
        while let message = try await next(timeout: max(0, deadline.timeIntervalSinceNow)) { messages.append(message) }
        return messages
    }

    /// Every message each client receives within `seconds`, reading all of them at once so
    /// none lags; in the order of `clients`.
    static func collect(from clients: [SocketClient], for seconds: Double) async throws -> [[[String: Any]]] {
        /// JSON objects from JSONSerialization hold only Sendable values (strings, numbers, …).
        struct Received: @unchecked Sendable { let index: Int; let messages: [[String: Any]] }
        return try await withThrowingTaskGroup(of: Received.self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask { Received(index: index, messages: try await client.collect(for: seconds)) }
            }
            var all = [[[String: Any]]](repeating: [], count: clients.count)
            for try await received in group { all[received.index] = received.messages }
            return all
        }
    }

    /// Reads what is there; false when nothing was.
    private func receive() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            pending.append(contentsOf: buffer[0..<n])
            return true
        }
        if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            resetByPeer = n < 0 && errno == ECONNRESET
            closedByPeer = true
        }
        return false
    }

    /// Waits until the daemon closes the connection (draining what it sends first).
    func waitForClose(timeout: Double = 5) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !closedByPeer && Date() < deadline {
            pending.removeAll()
            if !receive() { try? await Task.sleep(for: .milliseconds(5)) }
        }
        return closedByPeer
    }
}

/// A `motiond` serving a socket in a temporary directory.
struct ServedDaemon {
    let directory: URL
    let socket: String
    let process: RunningProcess

    /// `motiond ARGS --socket DIR/motiond.sock`, optionally under `umockdev-run` or with a
    /// testbed's environment; with `configuration`, that text is its configuration file,
    /// ``configurationPath``.
    init(_ arguments: [String], configuration: String? = nil, prefix: [String] = [], environment: [String: String]? = nil) throws {
        directory = try Emulation.temporaryDirectory()
        socket = directory.appendingPathComponent("motiond.sock").path
        var options = ["--socket", socket, "--log-level", "debug"]
        if let configuration {
            let path = directory.appendingPathComponent("motiond.toml").path
            try configuration.write(toFile: path, atomically: true, encoding: .utf8)
            options += ["--config", path]
        }
        process = try RunningProcess(prefix + [Emulation.motiond] + options + arguments, environment: environment)
    }

    var configurationPath: String { directory.appendingPathComponent("motiond.toml").path }

    func connect() async throws -> SocketClient {
        let client = try await SocketClient(path: socket)
        // A harness wait, not a latency check: with the whole suite on two cores the test
        // process itself was seen to read the hello more than 5 s after the daemon sent it.
        guard try await client.hello() != nil else { throw TestFailure("no hello from \(socket); stderr: \(process.stderr)") }
        return client
    }

    /// Stops the daemon (SIGTERM) and removes the directory; returns the exit status. A daemon
    /// that does not exit fails the calling test (``RunningProcess/stop(timeout:sourceLocation:)``).
    func stop(sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        defer { try? FileManager.default.removeItem(at: directory) }
        return process.stop(sourceLocation: sourceLocation)
    }

    /// Open file descriptors of the daemon.
    var descriptorCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd").count) ?? -1
    }
}
