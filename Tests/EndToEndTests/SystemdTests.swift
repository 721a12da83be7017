import Foundation
import Glibc
import MotionProtocol
@testable import TestSupport
import Testing
import MotionSync

/// motiond as a systemd service: the unit files pass `systemd-analyze verify` without a single
/// warning and `systemd-analyze security` under 2.0; the daemon reports READY/STATUS/WATCHDOG
/// on a test `NOTIFY_SOCKET`, handles SIGHUP as a reload, and adopts a socket passed by
/// `systemd-socket-activate`.
@Suite("systemd integration")
struct SystemdTests {
    /// What `make install-data` (the part of `make install` that is not the binaries) puts under
    /// a fresh DESTDIR, with ExecStart pointing at the motiond under test; the units are in
    /// `usr/lib/systemd/system`.
    static func installedUnits() async throws -> URL {
        let dir = try Emulation.temporaryDirectory()
        let bindir = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().path
        let make = try await Emulation.run(["make", "-s", "-C", Emulation.packageRoot.path, "install-data",
                                            "DESTDIR=\(dir.path)", "PREFIX=/usr", "BINDIR=\(bindir)"])
        guard make.status == 0 else { throw TestFailure("make install-data: \(make.stderr)") }
        return dir
    }

    static func unitDirectory(_ destdir: URL) -> String { destdir.appendingPathComponent("usr/lib/systemd/system").path }

    @Test("make install-data: units with the binary's path, sysusers entry, udev rule, the configuration (never overwritten once edited), the D-Bus policy and polkit action")
    func installData() async throws {
        let dir = try await Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bindir = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().path
        let service = try String(contentsOfFile: Self.unitDirectory(dir) + "/motiond.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(bindir)/motiond\n"))
        for file in ["usr/lib/systemd/system/motiond.socket", "usr/lib/sysusers.d/motiond.conf", "usr/lib/udev/rules.d/70-motiond.rules",
                     "usr/share/doc/motiond/61-motiond-mount-matrix.hwdb.example", "usr/share/doc/motiond/motiond.toml",
                     "usr/share/dbus-1/system.d/motiond-sensor-proxy.conf", "usr/share/polkit-1/actions/motiond.net.hadess.SensorProxy.policy",
                     "usr/share/doc/motiond/sensor-proxy.conf"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path), "\(file)")
        }
        let config = dir.appendingPathComponent("etc/motiond/motiond.toml").path
        let shipped = try String(contentsOfFile: Emulation.packageRoot.appendingPathComponent("etc/motiond/motiond.toml").path, encoding: .utf8)
        #expect(try String(contentsOfFile: config, encoding: .utf8) == shipped)
        // The installed binary reads it (the shipped file is all defaults, commented out).
        let listed = try await Emulation.run([Emulation.motiond, "--config", config, "--source", "sim:", "--list-sensors"])
        #expect(listed.status == 0, "\(listed.stderr)")

        try "[access]\nothers = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let again = try await Emulation.run(["make", "-s", "-C", Emulation.packageRoot.path, "install-data",
                                             "DESTDIR=\(dir.path)", "PREFIX=/usr", "BINDIR=\(bindir)"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "[access]\nothers = \"none\"\n", "an edited configuration stays")
    }

    static var hasSystemdAnalyze: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") }

    @Test("the service and socket units verify without a warning", .enabled(if: hasSystemdAnalyze, "systemd-analyze is not installed"))
    func unitsVerify() async throws {
        let dir = try await Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: dir) }
        Self.expectClean(try await Emulation.run(["sh", "-c", "cd '\(Self.unitDirectory(dir))' && systemd-analyze verify motiond.service motiond.socket"]))
    }

    @Test("make install-sensor-proxy: the drop-in (Conflicts=iio-sensor-proxy, --sensor-proxy) verifies without a warning; uninstall-sensor-proxy removes it",
          .enabled(if: hasSystemdAnalyze, "systemd-analyze is not installed"))
    func sensorProxyDropIn() async throws {
        let dir = try await Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bindir = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().path
        let units = Self.unitDirectory(dir)
        // Beside the unit, where systemd-analyze verify finds drop-ins (the installed one goes
        // to /etc/systemd/system/motiond.service.d).
        let install = try await Emulation.run(["make", "-s", "-C", Emulation.packageRoot.path, "install-sensor-proxy",
                                               "DESTDIR=\(dir.path)", "DROPINDIR=/usr/lib/systemd/system/motiond.service.d", "BINDIR=\(bindir)"])
        #expect(install.status == 0, "\(install.stderr)")
        let dropIn = try String(contentsOfFile: units + "/motiond.service.d/sensor-proxy.conf", encoding: .utf8)
        #expect(dropIn.contains("Conflicts=iio-sensor-proxy.service\n") && dropIn.contains("ExecStart=\(bindir)/motiond --sensor-proxy\n"))
        // Its stop before motiond's start: the buffers it leaves enabled are then taken over.
        #expect(dropIn.contains("After=iio-sensor-proxy.service\n"))
        Self.expectClean(try await Emulation.run(["sh", "-c", "cd '\(units)' && systemd-analyze verify motiond.service"]))
        let shown = try await Emulation.run(["sh", "-c", "cd '\(units)' && systemd-analyze cat-config --root='\(dir.path)' systemd/system/motiond.service.d/sensor-proxy.conf"])
        #expect(shown.stdout.contains("Conflicts=iio-sensor-proxy.service"), "\(shown.stderr)")
        let uninstall = try await Emulation.run(["make", "-s", "-C", Emulation.packageRoot.path, "uninstall-sensor-proxy",
                                                 "DESTDIR=\(dir.path)", "DROPINDIR=/usr/lib/systemd/system/motiond.service.d"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(!FileManager.default.fileExists(atPath: units + "/motiond.service.d"))
    }

    @Test("dbus-daemon accepts the D-Bus policy on a deny-by-default system bus, and root may own net.hadess.SensorProxy under it",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"), "dbus-daemon is not installed"))
    func dbusPolicyLoads() async throws {
        // SystemBus includes the policy file; a policy dbus-daemon rejects stops it starting.
        let bus = try await SystemBus()
        let peer = try await bus.busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName", "su", "net.hadess.SensorProxy", "0"])
        #expect(peer.stdout.hasPrefix("u 1"), "root may own the name: \(peer.stdout)\(peer.stderr)")
    }

    /// `systemd-analyze verify` succeeded without a word.
    static func expectClean(_ result: ProcessOutput, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty && result.stdout.isEmpty, "warnings: \(result.stderr)\(result.stdout)", sourceLocation: sourceLocation)
    }

    @Test("the service's GLIBC_TUNABLES take effect: this glibc's loader reads each setting back as the unit gives it (a misspelt one would be ignored)")
    func glibcTunables() async throws {
        let unit = try String(contentsOf: Emulation.packageRoot.appendingPathComponent("systemd/motiond.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("Environment=GLIBC_TUNABLES=") })
        let tunables = String(line.dropFirst("Environment=GLIBC_TUNABLES=".count))
        // The stack cache the daemon at rest does without (docs/PERFORMANCE.md).
        #expect(tunables.contains("glibc.pthread.stack_cache_size=0"))
        var environment = RunningProcess.plainEnvironment
        environment["GLIBC_TUNABLES"] = tunables
        let listed = try await Emulation.run(["/lib64/ld-linux-x86-64.so.2", "--list-tunables"], environment: environment)
        for setting in tunables.split(separator: ":") {
            let parts = setting.split(separator: "=", maxSplits: 1)
            try #require(parts.count == 2, "\(setting)")
            let value = try #require(Int(parts[1]))
            #expect(listed.stdout.contains("\(parts[0]): 0x\(String(value, radix: 16)) "), "\(setting): \(listed.stdout)")
        }
    }

    @Test("motiond-rotate's user unit verifies without a warning in a user manager", .enabled(if: hasSystemdAnalyze, "systemd-analyze is not installed"))
    func userUnitVerifies() async throws {
        let dir = try await Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: dir) }
        let userUnits = dir.appendingPathComponent("usr/lib/systemd/user").path
        let runtime = dir.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        Self.expectClean(try await Emulation.run(["sh", "-c", "cd '\(userUnits)' && XDG_RUNTIME_DIR='\(runtime)' systemd-analyze verify --user motiond-rotate.service"]))
    }

    @Test("the service's exposure (systemd-analyze security) is at most 2.0", .enabled(if: hasSystemdAnalyze, "systemd-analyze is not installed"))
    func exposure() async throws {
        let dir = try await Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await Emulation.run(["sh", "-c", "cd '\(Self.unitDirectory(dir))' && systemd-analyze security --offline=yes motiond.service"])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for motiond.service") })
        let score = try #require(Double(line.split(separator: ":").last?.split(separator: " ").first ?? ""), "\(line)")
        #expect(score <= 2.0, "\(line)")
    }

    /// A datagram socket standing in for systemd's notification socket, read as systemd reads
    /// its own: all the time, on a dispatch queue of its own (not the test's task, which a busy
    /// test run can starve for seconds). Unread, the socket's queue holds ten datagrams (the
    /// kernel's `max_dgram_qlen`): at five watchdog pings a second the daemon's next
    /// notification would then block, as it did once at `STOPPING=1` while the test waited for
    /// the daemon to exit before reading.
    final class NotifyReceiver {
        let path: String
        private let reader: any DispatchSourceRead
        private let received: Lock<[String]>

        var messages: [String] { received.withLock { $0 } }

        init(in directory: URL) throws {
            let path = directory.appendingPathComponent("notify.sock").path
            self.path = path
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw TestFailure("cannot bind \(path)")
            }
            let received = Lock<[String]>([])
            self.received = received
            reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "notify receiver"))
            reader.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while case let n = buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }), n > 0 {
                    let message = String(decoding: buffer[0..<n], as: UTF8.self)
                    received.withLock { $0.append(message) }
                }
            }
            reader.setCancelHandler { close(fd) }
            reader.resume()
        }

        deinit { reader.cancel() }

        /// Waits until `condition` holds on the datagrams received so far, or `timeout` seconds pass.
        func wait(timeout: Double, until condition: ([String]) -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if condition(messages) { return true }
                if Date() >= deadline { return condition(messages) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test("READY=1 with a status once serving, STATUS as clients come, WATCHDOG=1 from the pipeline, RELOADING on SIGHUP, STOPPING on SIGTERM")
    func notify() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let receiver = try NotifyReceiver(in: dir)
        var environment = RunningProcess.plainEnvironment
        environment["NOTIFY_SOCKET"] = receiver.path
        environment["WATCHDOG_USEC"] = "400000"
        let socketPath = dir.appendingPathComponent("motiond.sock").path
        let daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--socket", socketPath], environment: environment)
        defer { daemon.terminate() }

        #expect(await receiver.wait(timeout: 10) { $0.contains { $0.hasPrefix("READY=1\nSTATUS=0 clients; sensors idle") } },
                "\(receiver.messages); running: \(daemon.isRunning); stderr: \(daemon.stderr)")
        // Ready means serving: the socket answers at once.
        let client = try await SocketClient(path: socketPath, timeout: 0.5)
        #expect(try await client.hello() != nil)
        try await client.send(.subscribe(.init(id: 1, stream: .orientation)))
        #expect(await receiver.wait(timeout: 5) { $0.contains("STATUS=1 client; accelerometer every 20 ms") }, "\(receiver.messages)")
        // Pings every half watchdog period (0.2 s).
        let pings = receiver.messages.filter { $0 == "WATCHDOG=1" }.count
        #expect(await receiver.wait(timeout: 3) { $0.filter { $0 == "WATCHDOG=1" }.count >= pings + 4 }, "\(receiver.messages)")

        kill(daemon.pid, SIGHUP)
        #expect(await receiver.wait(timeout: 5) { messages in
            guard let reloading = messages.lastIndex(of: "RELOADING=1") else { return false }
            return messages[(reloading + 1)...].contains { $0.hasPrefix("READY=1\nSTATUS=1 client") }
        }, "\(receiver.messages)")
        #expect(daemon.isRunning, "a reload does not stop the daemon")

        #expect(daemon.stop() == 0)
        #expect(await receiver.wait(timeout: 2) { $0.last == "STOPPING=1\nSTATUS=stopping: SIGTERM" }, "\(receiver.messages)")
        #expect(daemon.stderr.contains("configuration reloaded (nothing changed)"), "\(daemon.stderr)")
    }

    @Test("a notification socket nobody reads (its queue full of pings): a reload and SIGTERM still go through, the daemon exits 0 within seconds")
    func stalledNotificationSocket() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Bound, never read: ten datagrams fill its queue, then sd_notify blocks.
        let path = dir.appendingPathComponent("notify.sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        var environment = RunningProcess.plainEnvironment
        environment["NOTIFY_SOCKET"] = path
        environment["WATCHDOG_USEC"] = "100000" // a ping every 50 ms: the queue is full within a second
        let socketPath = dir.appendingPathComponent("motiond.sock").path
        let daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--socket", socketPath], environment: environment)
        defer { daemon.terminate() }
        let client = try await SocketClient(path: socketPath, timeout: 10)
        #expect(try await client.hello() != nil)
        try await Task.sleep(for: .seconds(1.5))
        var queued = 0
        #expect(ioctl(fd, UInt(FIONREAD), &queued) == 0 && queued > 0, "the socket holds unread datagrams")
        kill(daemon.pid, SIGHUP)
        let reloaded = Date().addingTimeInterval(20)
        while !daemon.stderr.contains("configuration reloaded"), Date() < reloaded { try await Task.sleep(for: .milliseconds(50)) }
        #expect(daemon.stderr.contains("configuration reloaded"), "\(daemon.stderr)")
        #expect(daemon.stop(timeout: 15) == 0, "\(daemon.stderr)")
    }

    @Test("socket activation: the daemon adopts the socket systemd-socket-activate passes and leaves it in place",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"), "systemd-socket-activate is not installed"))
    func socketActivation() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socketPath = dir.appendingPathComponent("activated.sock").path
        // Under a shell that stays: systemd-socket-activate closes every inherited descriptor
        // before exec, including the one Foundation's Process watches to notice an exit, which
        // would make Foundation wait for this child while it runs and stall every other one.
        let command = ["systemd-socket-activate", "-l", socketPath, Emulation.motiond, "--source", "sim:", "--socket", socketPath]
        let activator = try RunningProcess(["sh", "-c", command.map(Emulation.shellQuote).joined(separator: " ") + "; echo \"exit=$?\""])
        defer { activator.terminate() }
        // The first connection starts the daemon on the passed socket: the hello comes once it
        // has started (seconds on a busy machine).
        let client = try await SocketClient(path: socketPath)
        #expect(try await client.next(type: "hello", timeout: 30) != nil)
        try await client.send(.status(id: 1))
        #expect((try await client.reply(1)?["status"] as? [String: Any])?["source"] as? String == "sim:")
        #expect(await activator.wait(timeout: 5) { $0.stderr.contains("listening on \(socketPath) (socket passed by systemd)") }, "\(activator.stderr)")
        let daemon = try await Emulation.run(["pgrep", "-P", "\(activator.pid)"])
        let pid = try #require(Int32(daemon.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "no daemon under \(activator.pid)")
        kill(pid, SIGTERM)
        #expect(await activator.wait(timeout: 10) { $0.stdout.contains("exit=") })
        #expect(activator.stdout.contains("exit=0"), "\(activator.stdout) \(activator.stderr)")
        #expect(FileManager.default.fileExists(atPath: socketPath), "the socket belongs to systemd, not to the daemon")
    }
}
