import ArgumentParser
import Foundation
import Glibc
import MotionProtocol

/// The daemon under load: starts a release `motiond` on the simulated IMU with its own socket in
/// a temporary directory, and for each client count connects that many clients, each
/// subscribed to `deviceMotion` in `xMagneticNorthZVertical` every 10 ms (100 Hz). After a
/// warm-up it measures, per round:
/// - sample-to-client latency, milliseconds (p50, p99, max): the client's CLOCK_BOOTTIME when
///   the `read()` returning a line completed, minus the line's `timestamp` (seconds since boot,
///   the sample's time);
/// - messages received per second over all clients, and per client in Hz (mean and minimum,
///   against the requested 100 Hz);
/// - samples the daemon reports dropped (`dropped` messages) during the window;
/// - the daemon's CPU time over the window (utime + stime in /proc/PID/stat), as a percentage
///   of one core;
/// - the daemon's resident memory at the window's end (VmRSS) and its peak since it started
///   (VmHWM), MiB;
/// - this benchmark's own CPU, everything else the machine ran, and the time the hypervisor
///   stole (/proc/stat), % of one core: the daemon shares the machine with all of them.
/// All clients are read by one thread through epoll, in large chunks, parsing only what it
/// needs, so that the client is not the bottleneck (its own CPU share is reported too).
struct DaemonBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon-bench",
        abstract: "Measure motiond's sample-to-client latency, delivery, drops, CPU and memory with many clients (build with -c release).")

    @Option(help: "The motiond executable to start (default: the one beside this motionctl).")
    var motiond: String?

    @Option(help: "Client counts, one round each, comma-separated.")
    var clients = "1,10,100,1000"

    @Option(help: "Seconds measured per round, after the warm-up.")
    var duration = 10.0

    @Option(help: "Seconds of warm-up per round before measuring (the fusion starts, backlogs clear).")
    var warmup = 2.0

    @Flag(help: "Print the results as JSON.")
    var json = false

    /// What each client sends: device motion in the magnetic-north frame at 100 Hz.
    static let request = ClientRequest.subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.01, frame: .xMagneticNorthZVertical))
    static let requestedRate = 100.0

    var clientCounts: [Int] {
        clients.split(separator: ",").compactMap { Int($0.trimmingWhitespace(newlines: false)) }
    }

    func validate() throws {
        let counts = clientCounts
        guard !counts.isEmpty, counts.count == clients.split(separator: ",").count, counts.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("--clients \(clients): expected positive integers separated by commas, e.g. 1,10,100")
        }
        guard duration.isFinite, duration > 0 else { throw ValidationError("--duration must be a positive number of seconds") }
        guard warmup.isFinite, warmup >= 0 else { throw ValidationError("--warmup must be zero or more seconds") }
    }

    func run() throws {
        let counts = clientCounts
        let limit = raiseDescriptorLimit()
        // Each client holds one descriptor here; the daemon needs as many (it raises its own).
        if let most = counts.max(), most + 64 > limit {
            throw BenchError("\(most) clients need more open files than the limit of \(limit) (ulimit -Hn)")
        }
        let daemon = try ChildDaemon(executable: motiond ?? Self.besideThisExecutable("motiond"))
        var rounds: [RoundResult] = []
        var stopped = false
        defer { if !stopped { _ = daemon.stop() } }
        for (index, count) in counts.enumerated() {
            // Let the previous round's disconnections settle.
            if index > 0 { Thread.sleep(forTimeInterval: 1) }
            try daemon.checkRunning()
            if !json { FileHandle.standardError.write(Data("round: \(count) clients…\n".utf8)) }
            rounds.append(try measure(count, daemon: daemon))
        }
        let ending = daemon.stop()
        stopped = true
        let report = Report(daemon: daemon.executable, source: "sim:", stream: "deviceMotion", frame: "xMagneticNorthZVertical",
                            requestedRateHz: Self.requestedRate, warmupSeconds: warmup, durationSeconds: duration,
                            cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), kernel: Self.kernelRelease, rounds: rounds, daemonExit: ending)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            // Latencies are NaN in a round that received nothing.
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table)
        }
    }

    /// One round: connect, subscribe, warm up, measure, disconnect.
    private func measure(_ count: Int, daemon: ChildDaemon) throws -> RoundResult {
        let set = try ClientSet(count: count, path: daemon.socketPath, request: Array((Self.request.json + "\n").utf8))
        defer { set.closeAll() }

        try set.pump(for: warmup)
        // Everyone must be answered before measuring (an overloaded daemon may take longer than
        // the warm-up); a refusal, or silence for 10 s more, is a daemon problem.
        let patience = Clock.monotonic() + 10
        while set.accepted + set.refusals.count < count, set.disconnected == 0, Clock.monotonic() < patience {
            try set.pump(for: 0.1)
        }
        if let failure = set.refusals.first { throw BenchError("subscribe refused: \(failure)") }
        if set.accepted < count {
            throw BenchError("only \(set.accepted) of \(count) clients had their subscribe answered within \(warmup + 10) s"
                + (set.disconnected > 0 ? "; \(set.disconnected) were disconnected" : "")
                + (set.goodbyes.first.map { "; goodbye: \($0)" } ?? ""))
        }

        set.startRecording()
        let cpuBefore = try daemon.cpuTicks()
        let selfBefore = Self.ownCPUSeconds()
        let machineBefore = try MachineTicks()
        let start = Clock.monotonic()
        try set.pump(for: duration)
        let elapsed = Clock.monotonic() - start
        let cpuAfter = try daemon.cpuTicks()
        let selfAfter = Self.ownCPUSeconds()
        let machineAfter = try MachineTicks()
        let memory = try daemon.memory()
        try daemon.checkRunning()

        var latencies = set.latencies
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return .nan }
            return latencies[max(0, Int((p * Double(latencies.count)).rounded(.up)) - 1)] * 1000
        }
        let rates = set.received.map { Double($0) / elapsed }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let daemonCPU = Double(cpuAfter - cpuBefore) / ticks / elapsed * 100
        let benchCPU = (selfAfter - selfBefore) / elapsed * 100
        let busy = Double(machineAfter.busy - machineBefore.busy) / ticks / elapsed * 100
        return RoundResult(
            clients: count,
            messagesPerSecond: Double(set.received.reduce(0, +)) / elapsed,
            perClientRateMeanHz: rates.reduce(0, +) / Double(count),
            perClientRateMinHz: rates.min() ?? 0,
            latencyP50Ms: percentile(0.5), latencyP99Ms: percentile(0.99), latencyMaxMs: (latencies.last ?? .nan) * 1000,
            latencySamples: latencies.count,
            dropReports: set.dropReports, droppedSamples: set.droppedSamples, droppedBeforeWindow: set.droppedBeforeRecording,
            disconnected: set.disconnected,
            daemonCPUPercent: daemonCPU, benchCPUPercent: benchCPU,
            otherCPUPercent: max(0, busy - daemonCPU - benchCPU),
            stealPercent: Double(machineAfter.steal - machineBefore.steal) / ticks / elapsed * 100,
            rssMiB: Double(memory.rss) / 1024, peakRSSMiB: Double(memory.peak) / 1024,
            measuredSeconds: elapsed)
    }

    /// Raises the soft limit on open files to the hard limit; returns the limit in force.
    private func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 { _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
        }
        return Int(min(limit.rlim_cur, rlim_t(Int.max)))
    }

    /// `name` in the directory of the running executable.
    private static func besideThisExecutable(_ name: String) throws -> String {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw BenchError("cannot find this executable (/proc/self/exe); pass --motiond PATH")
        }
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
    }

    private static var kernelRelease: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// This process's user + system CPU time, seconds.
    private static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

private struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private enum Clock {
    static func monotonic() -> Double { now(CLOCK_MONOTONIC) }
    /// Seconds since boot, counting suspend: the clock of every motiond timestamp.
    static func boot() -> Double { now(CLOCK_BOOTTIME) }

    private static func now(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// CPU time of the whole machine from the first line of /proc/stat, clock ticks.
private struct MachineTicks {
    /// user + nice + system + irq + softirq (guest time is inside user).
    var busy = 0
    var steal = 0

    init() throws {
        let text = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        let fields = text.prefix(while: { $0 != "\n" }).split(separator: " ").dropFirst().compactMap { Int($0) }
        guard text.hasPrefix("cpu "), fields.count >= 8 else { throw BenchError("cannot parse /proc/stat") }
        busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
        steal = fields[7]
    }
}

// MARK: - The daemon under test

/// `motiond --source sim:` as a child process, on a socket in its own temporary directory (never
/// the system's /run/motiond).
private final class ChildDaemon {
    let executable: String
    let socketPath: String
    private let directory: String
    private let process = Process()

    init(executable: String) throws {
        guard access(executable, X_OK) == 0 else {
            throw BenchError("no executable motiond at \(executable): build it (swift build -c release --product motiond) or pass --motiond PATH")
        }
        self.executable = executable
        var template = Array((FileManager.default.temporaryDirectory.path + "/motiond-bench.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        socketPath = directory + "/motiond.sock"
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--source", "sim:", "--socket", socketPath, "--log-level", "warning"]
        do {
            try process.run()
        } catch {
            rmdir(directory)
            throw BenchError("cannot start \(executable): \(error)")
        }
        // Ready once the socket accepts a connection.
        let deadline = Clock.monotonic() + 10
        while true {
            if let fd = try? connectUnix(socketPath) {
                close(fd)
                return
            }
            guard process.isRunning else {
                rmdir(directory)
                throw BenchError("motiond exited before serving its socket (\(exitDescription))")
            }
            guard Clock.monotonic() < deadline else {
                _ = stop()
                throw BenchError("motiond did not accept connections on \(socketPath) within 10 s")
            }
            usleep(20_000)
        }
    }

    var pid: Int32 { process.processIdentifier }

    private var exitDescription: String {
        process.terminationReason == .uncaughtSignal ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
    }

    func checkRunning() throws {
        guard process.isRunning else { throw BenchError("motiond is gone (\(exitDescription))") }
    }

    /// utime + stime, clock ticks (fields 14 and 15 of /proc/PID/stat).
    func cpuTicks() throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count after it.
        guard let close = text.lastIndex(of: ")") else { throw BenchError("cannot parse /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw BenchError("cannot parse /proc/\(pid)/stat")
        }
        return user + system
    }

    /// Resident memory now and its peak since the daemon started, kB.
    func memory() throws -> (rss: Int, peak: Int) {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kilobytes(_ key: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).compactMap { Int($0.trimmingWhitespace(newlines: false)) }.first
        }
        guard let rss = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { throw BenchError("no VmRSS/VmHWM in /proc/\(pid)/status") }
        return (rss, peak)
    }

    /// SIGTERM, then waits up to 5 s (SIGKILL after); removes the temporary directory. Returns
    /// how it ended, e.g. `exit status 0`.
    func stop() -> String {
        let how: String
        if process.isRunning {
            process.terminate()
            let deadline = Clock.monotonic() + 5
            while process.isRunning && Clock.monotonic() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
                how = "did not exit within 5 s of SIGTERM; killed"
            } else {
                how = exitDescription
            }
        } else {
            how = "had already ended (\(exitDescription))"
        }
        unlink(socketPath)
        rmdir(directory)
        return how
    }
}

/// A blocking, close-on-exec connection to the Unix socket at `path`.
private func connectUnix(_ path: String) throws -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long: \(path)") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        let code = errno
        close(fd)
        throw BenchError("connect to \(path): \(String(cString: strerror(code)))")
    }
    return fd
}

// MARK: - The clients

/// `count` subscribed connections, read from this thread only through one epoll set. Lines are
/// split in the read buffer; of each line only the type and the one number needed are looked
/// at (no JSON parsing).
private final class ClientSet {
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
                let fd = try connectUnix(path)
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
        let deadline = Clock.monotonic() + seconds
        while true {
            let left = deadline - Clock.monotonic()
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
                lines(Clock.boot(), client, count)
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

/// An epoll set whose events carry a tag (the client's index). Glibc's Swift module does not
/// export <sys/epoll.h>, so the three calls are looked up in libc by name and `struct
/// epoll_event` is laid out by hand: packed on x86-64 (12 bytes), naturally aligned elsewhere.
private final class Epoll {
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

// MARK: - Results

private struct RoundResult: Codable {
    var clients: Int
    /// deviceMotion messages received per second, all clients together.
    var messagesPerSecond: Double
    /// Messages per second per client (the request is 100 Hz).
    var perClientRateMeanHz: Double
    var perClientRateMinHz: Double
    var latencyP50Ms: Double
    var latencyP99Ms: Double
    var latencyMaxMs: Double
    var latencySamples: Int
    /// `dropped` messages received during the window, and the samples the daemon reported
    /// dropped in them; drops reported during the warm-up are counted apart.
    var dropReports: Int
    var droppedSamples: Int
    var droppedBeforeWindow: Int
    /// Clients the daemon closed during the round.
    var disconnected: Int
    /// The daemon's user + system CPU time over the window, % of one core.
    var daemonCPUPercent: Double
    /// This benchmark's own CPU over the window, % of one core (it shares the machine).
    var benchCPUPercent: Double
    /// Everything else the machine's CPUs ran over the window, and the time the hypervisor
    /// took from them (steal), % of one core: a busy or stolen-from machine skews the round.
    var otherCPUPercent: Double
    var stealPercent: Double
    /// VmRSS at the window's end and VmHWM (peak since the daemon started), MiB.
    var rssMiB: Double
    var peakRSSMiB: Double
    var measuredSeconds: Double
}

private struct Report: Codable {
    var daemon: String
    var source: String
    var stream: String
    var frame: String
    var requestedRateHz: Double
    var warmupSeconds: Double
    var durationSeconds: Double
    var cores: Int
    var kernel: String
    var rounds: [RoundResult]
    /// How the daemon ended on SIGTERM after the last round.
    var daemonExit: String

    var table: String {
        var lines = [
            "motiond (\(source)), each client subscribed to \(stream) in \(frame) at \(Int(requestedRateHz)) Hz; "
                + "\(String(format: "%g", warmupSeconds)) s warm-up, \(String(format: "%g", durationSeconds)) s measured per round; "
                + "\(cores) cores, Linux \(kernel)",
            "",
            "| clients | messages/s (total) | per-client rate, Hz: mean (min) | latency p50 / p99 / max, ms | drops (samples) | daemon CPU, % of one core | daemon RSS / peak (VmHWM), MiB | bench client CPU, % | other processes / steal, % |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rounds {
            var drops = "\(r.droppedSamples)"
            if r.droppedBeforeWindow > 0 { drops += " (+\(r.droppedBeforeWindow) before the window)" }
            if r.disconnected > 0 { drops += ", \(r.disconnected) clients disconnected" }
            let rate = String(format: "%.0f | %.1f (%.1f)", r.messagesPerSecond, r.perClientRateMeanHz, r.perClientRateMinHz)
            let latency = String(format: "%.3f / %.3f / %.3f", r.latencyP50Ms, r.latencyP99Ms, r.latencyMaxMs)
            let cost = String(format: "%.1f | %.1f / %.1f | %.1f | %.1f / %.1f", r.daemonCPUPercent, r.rssMiB, r.peakRSSMiB,
                              r.benchCPUPercent, r.otherCPUPercent, r.stealPercent)
            lines.append("| \(r.clients) | \(rate) | \(latency) | \(drops) | \(cost) |")
        }
        lines.append("")
        lines.append("Latency: reader's CLOCK_BOOTTIME at read() minus the message's timestamp. VmHWM is the peak since the daemon started (all rounds so far). motiond on SIGTERM: \(daemonExit).")
        return lines.joined(separator: "\n")
    }
}
