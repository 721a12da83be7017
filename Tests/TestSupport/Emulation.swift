import MotionSync
import CUMockdev
import Foundation
import Glibc
import MotionIIO
import Testing

/// Paths and process helpers for tests that run the real `motiond` binary against emulated
/// IIO hardware (umockdev) or an iiod server.
enum Emulation {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/Fixtures/\(name)").path
    }

    static func fixtureText(_ name: String) throws -> String {
        try String(contentsOfFile: fixture(name), encoding: .utf8)
    }

    /// A umockdev description of the IIO device `iio:deviceN` at `syspath` (below /devices, no
    /// /sys): its device node, udev `properties` (`KEY=value`) and sysfs `attributes` in order
    /// (each value ends in the newline the kernel writes), then a blank line.
    static func iioDevice(_ syspath: some StringProtocol, number: Int, properties: [String] = [],
                          attributes: [(name: String, value: String)]) -> String {
        var text = "P: \(syspath)\nN: iio:device\(number)\nE: DEVNAME=/dev/iio:device\(number)\nE: SUBSYSTEM=iio\n"
            + "E: MAJOR=237\nE: MINOR=\(number)\n" + properties.map { "E: \($0)\n" }.joined() + "A: dev=237:\(number)\\n\n"
        for (name, value) in attributes { text += "A: \(name)=\(value)\\n\n" }
        return text + "\n"
    }

    /// A copy of a fixture with text replaced, written into `dir`; returns its path.
    static func variant(of name: String, in dir: URL, replacing replacements: [(String, String)]) throws -> String {
        var text = try fixtureText(name)
        for (old, new) in replacements {
            guard text.contains(old) else { throw TestFailure("\(name) has no '\(old)' to replace") }
            text = text.replacingOccurrences(of: old, with: new)
        }
        let path = dir.appendingPathComponent("variant-\(UUID().uuidString)-\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The `motiond` built next to the test bundle (`swift build --build-tests` builds both).
    static var motiond: String {
        if let path = ProcessInfo.processInfo.environment["MOTIOND_BIN"] { return path }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("motiond").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return packageRoot.appendingPathComponent(".build/debug/motiond").path
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("motiond-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `motiond ARGS` under `umockdev-run` with a device description and optional scripts
    /// feeding `/dev/iio:deviceN`; `after` runs inside the emulated tree once motiond exits
    /// (e.g. to read back sysfs attributes motiond wrote).
    static func motiond(fixturePath: String, scripts: [String: String] = [:], _ arguments: [String], after: String? = nil, timeout: Double = 30,
                        environment: [String: String]? = nil) async throws -> ProcessOutput {
        var command = ["umockdev-run", "-d", fixturePath]
        for (device, script) in scripts.sorted(by: { $0.key < $1.key }) {
            command += ["-s", "\(device)=\(script)"]
        }
        let quoted = ([motiond] + arguments).map(shellQuote).joined(separator: " ")
        if let after {
            command += ["--", "sh", "-c", "\(quoted); status=$?; echo '--- after ---'; \(after); exit $status"]
        } else {
            command += ["--"] + [motiond] + arguments
        }
        return try await run(command, environment: environment, timeout: timeout)
    }

    static func motiond(fixture name: String, scripts: [String: String] = [:], _ arguments: [String], after: String? = nil) async throws -> ProcessOutput {
        try await motiond(fixturePath: fixture(name), scripts: scripts, arguments, after: after)
    }

    /// `motiond --list-sensors --json` on a fixture, decoded.
    static func listing(fixturePath: String, extra: [String] = [], environment: [String: String]? = nil) async throws -> SensorListing {
        let output = try await motiond(fixturePath: fixturePath, ["--list-sensors", "--json"] + extra, environment: environment)
        guard output.status == 0 else { throw TestFailure("motiond --list-sensors failed (\(output.status)): \(output.stderr)") }
        return try JSONDecoder().decode(SensorListing.self, from: Data(output.stdout.utf8))
    }

    static func listing(fixture name: String, extra: [String] = []) async throws -> SensorListing {
        try await listing(fixturePath: fixture(name), extra: extra)
    }

    /// Runs a command to completion (killed after `timeout` seconds), capturing its output.
    /// Waiting suspends instead of blocking, so other tests keep the shared threads.
    static func run(_ command: [String], environment: [String: String]? = nil, timeout: Double = 30) async throws -> ProcessOutput {
        let process = try RunningProcess(command, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning {
            process.terminate()
            throw TestFailure("\(command.joined(separator: " ")) did not finish within \(timeout) s; output so far: \(process.stdout) \(process.stderr)")
        }
        return ProcessOutput(status: process.status, stdout: process.stdout, stderr: process.stderr)
    }

    static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The current CLOCK_BOOTTIME in seconds, measured independently of the code under test.
    static func bootTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

struct ProcessOutput {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output parsed as JSON lines.
    var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The sample lines of one stream (`accelerometer`, `gyro`, `magnetometer`, `baseAccelerometer`).
    func samples(_ stream: String) -> [(timestamp: Double, x: Double, y: Double, z: Double)] {
        let field = ["accelerometer": "acceleration", "gyro": "rotationRate", "magnetometer": "magneticField", "baseAccelerometer": "acceleration"][stream]!
        return jsonLines.compactMap { line in
            guard line["type"] as? String == stream, let t = line["timestamp"] as? Double,
                  let v = line[field] as? [String: Double], let x = v["x"], let y = v["y"], let z = v["z"] else { return nil }
            return (t, x, y, z)
        }
    }

    /// Availability lines for a sensor kind, in order.
    func availability(_ kind: String) -> [(available: Bool, reason: String, mode: String?)] {
        jsonLines.compactMap { line in
            guard line["type"] as? String == "availability", line["sensor"] as? String == kind,
                  let available = line["available"] as? Bool, let reason = line["reason"] as? String else { return nil }
            return (available, reason, line["mode"] as? String)
        }
    }

    /// The `period` of each `availability` line of `kind` that has one, seconds.
    func availabilityPeriods(_ kind: String) -> [Double] {
        jsonLines.compactMap { line in
            guard line["type"] as? String == "availability", line["sensor"] as? String == kind else { return nil }
            return line["period"] as? Double
        }
    }
}

/// A `{"x":…,"y":…,"z":…}` object of a parsed JSON line as [x, y, z] (NaN for what is missing).
func jsonVector(_ object: Any?) -> [Double] {
    let v = object as? [String: Double] ?? [:]
    return [v["x"] ?? .nan, v["y"] ?? .nan, v["z"] ?? .nan]
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process whose output goes to temporary files, readable while it runs. It leads a
/// process group of its own, so `terminate` ends everything it spawned, even children that
/// ignore SIGTERM (iiod does).
///
/// Started with posix_spawn and reaped here with waitpid: Foundation's `Process` could miss a
/// child's exit when many run at once and then spin in `waitUntilExit` forever (seen with a
/// zombie motiond, stalling the whole test run). The child gets no descriptor of the test
/// process but its standard input (/dev/null), output and error.
final class RunningProcess: Sendable {
    let pid: Int32
    /// The command as started, for messages.
    let command: String
    private let outURL: URL
    private let errURL: URL
    /// The exit status once reaped: the exit code, or the signal's number when a signal ended it
    /// (-2: reaped by someone else, status unknown).
    private let reaped = Lock<Int32?>(nil)

    init(_ command: [String], environment: [String: String]? = nil) throws {
        let dir = FileManager.default.temporaryDirectory
        outURL = dir.appendingPathComponent("motiond-out-\(UUID().uuidString)")
        errURL = dir.appendingPathComponent("motiond-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outURL.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errURL.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        // /usr/bin/env finds the command on PATH.
        var argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/env"] + command).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var envp: [UnsafeMutablePointer<CChar>?] = (environment ?? Self.plainEnvironment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/usr/bin/env", &actions, &attributes, &argv, &envp)
        guard result == 0 else { throw TestFailure("cannot start \(command.joined(separator: " ")): \(String(cString: strerror(result)))") }
        pid = child
        self.command = command.joined(separator: " ")
    }

    /// This process's environment without umockdev's variables: a child sees the real system
    /// (or sets up its own testbed, as umockdev-run does) unless a test passes a testbed's. Its
    /// system bus is none (a socket that does not exist) unless a test gives it a private one:
    /// what the machine's own bus says (whether iio-sensor-proxy runs there) must not decide a test.
    static var plainEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["LD_PRELOAD"] = nil
        env["UMOCKDEV_DIR"] = nil
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/motiond-tests/no-system-bus"
        return env
    }

    deinit {
        // Nobody can wait for the child any more: a thread of its own ends it, so a child that
        // ignores SIGTERM (iiod) holds no shared test thread for the grace period.
        let pid = pid, reaped = reaped
        if Self.poll(pid, reaped) == nil {
            do {
                try BackgroundThread.start(name: "end.\(pid)") { Self.end(pid, reaped) }
            } catch {
                Self.end(pid, reaped)
            }
        }
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }

    /// The exit status if the child has ended (reaping it), nil while it runs.
    private func poll() -> Int32? { Self.poll(pid, reaped) }

    private static func poll(_ pid: Int32, _ reaped: Lock<Int32?>) -> Int32? {
        reaped.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                let result = waitpid(pid, &raw, WNOHANG)
                if result == pid {
                    // WIFEXITED/WEXITSTATUS/WTERMSIG, which Glibc's module does not import.
                    status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
                } else if result < 0 && errno == ECHILD {
                    // Not our child any more (reaped elsewhere): ended, its status unknown.
                    status = -2
                }
            }
            return status
        }
    }

    /// Blocks until the child has ended; its status.
    private func waitForExit() -> Int32 { Self.waitForExit(pid, reaped) }

    private static func waitForExit(_ pid: Int32, _ reaped: Lock<Int32?>) -> Int32 {
        while true {
            if let status = poll(pid, reaped) { return status }
            usleep(5_000)
        }
    }

    var isRunning: Bool { poll() == nil }
    /// The exit code, or the number of the signal that ended it; -1 while it runs.
    var status: Int32 { poll() ?? -1 }
    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }
    var output: ProcessOutput { ProcessOutput(status: status, stdout: stdout, stderr: stderr) }

    /// SIGTERM to the whole group, then SIGKILL after a grace period.
    func terminate() { Self.end(pid, reaped) }

    private static func end(_ pid: Int32, _ reaped: Lock<Int32?>) {
        guard poll(pid, reaped) == nil else { return }
        kill(-pid, SIGTERM)
        let deadline = Date().addingTimeInterval(3)
        while poll(pid, reaped) == nil && Date() < deadline { usleep(20_000) }
        if poll(pid, reaped) == nil { kill(-pid, SIGKILL) }
        _ = waitForExit(pid, reaped)
    }

    /// Sends SIGTERM and waits for the exit status. A child still running `timeout` seconds
    /// later fails the test — recorded with its threads' stacks and the end of its standard
    /// error — and is killed, so a hung child fails one test instead of hanging the run.
    func stop(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        if isRunning { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { usleep(10_000) }
        if isRunning {
            Issue.record("""
                \(command) (pid \(pid)) did not exit within \(timeout) s of SIGTERM; killed. Its threads:
                \(Self.stacks(of: pid))
                The end of its standard error:
                \(stderr.suffix(3000))
                """, sourceLocation: sourceLocation)
            kill(-pid, SIGKILL)
        }
        return waitForExit()
    }

    /// Every thread's stack of a running process (eu-stack, from elfutils), or why there is none.
    private static func stacks(of pid: Int32) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/eu-stack") else { return "(no eu-stack to show them)" }
        guard let probe = try? RunningProcess(["eu-stack", "-p", "\(pid)"]) else { return "(eu-stack did not start)" }
        let deadline = Date().addingTimeInterval(20)
        while probe.isRunning && Date() < deadline { usleep(20_000) }
        probe.terminate()
        return probe.stdout + probe.stderr
    }

    /// Polls the output until `condition` holds or `timeout` seconds pass.
    func wait(timeout: Double, for condition: (ProcessOutput) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(output) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(output)
    }
}
