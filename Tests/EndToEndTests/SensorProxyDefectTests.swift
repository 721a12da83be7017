import Foundation
import Glibc
@testable import TestSupport
import Testing

/// Defects of the D-Bus face found from outside (issue 29 §2), each restated as a test against
/// the real motiond on a private system bus with python-dbusmock's polkit: claims of clients
/// that leave before polkit answers, polkit's answer for a client that left, one client's
/// flood of calls against another's, and a bus that never answers at stop.
@Suite("D-Bus face defects")
struct SensorProxyDefectTests {
    static let mainObject = ["/net/hadess/SensorProxy", "net.hadess.SensorProxy"]

    /// motiond on the simulated IMU serving the D-Bus face on `bus`.
    static func served(on bus: SystemBus) async throws -> ServedDaemon {
        let daemon = try ServedDaemon(["--source", "sim:", "--sensor-proxy", "--no-config"], environment: bus.environment())
        guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
            throw TestFailure("motiond did not own net.hadess.SensorProxy: \(daemon.process.stderr.suffix(2000))")
        }
        return daemon
    }

    /// `gdbus call … ClaimAccelerometer` left running (it waits for the answer).
    static func claimInBackground(on bus: SystemBus) throws -> RunningProcess {
        try RunningProcess(["gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path", mainObject[0],
                            "--method", "net.hadess.SensorProxy.ClaimAccelerometer"], environment: bus.environment())
    }

    @Test("polkit's NameHasNoOwner (the client left before polkit looked it up) drops the call quietly, not taken for polkit's absence; a real absence later is still said",
          .enabled(if: HotplugTests.hasDBusTools, "needs dbus-daemon, busctl and gdbus"))
    func subjectGoneIsNotPolkitAbsent() async throws {
        let bus = try await SystemBus()
        let polkit = try #require(try await bus.startPolkitAllowingRoot(afterSubjectLeaves: true), "python3-dbusmock is not installed")
        defer { polkit.terminate() }
        let daemon = try await Self.served(on: bus)
        defer { _ = daemon.stop() }

        let claimer = try Self.claimInBackground(on: bus)
        #expect(await polkit.wait(timeout: 10) { $0.stdout.contains("CheckAuthorization") }, "polkit was asked: \(daemon.process.stderr)")
        claimer.terminate()
        // polkit looks the client up once it has left.
        #expect(await polkit.wait(timeout: 10) { $0.stdout.contains("NameHasNoOwner") }, "\(polkit.stdout)")
        // A call after polkit's error: motiond has handled the error when it answers this one.
        _ = try await bus.busctl(["get-property", "net.hadess.SensorProxy"] + Self.mainObject + ["HasAccelerometer"])
        #expect(await daemon.process.wait(timeout: 5) { $0.stderr.contains("dropped: it left the bus before polkit answered") }, "\(daemon.process.stderr)")
        #expect(!daemon.process.stderr.contains("polkit is not on the system bus"), "\(daemon.process.stderr)")

        // polkit really gone: said, and root may claim.
        polkit.terminate()
        let claim = try await bus.busctl(["call", "net.hadess.SensorProxy"] + Self.mainObject + ["ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.stderr)")
        #expect(daemon.process.stderr.contains("polkit is not on the system bus: only root may claim sensors"), "\(daemon.process.stderr)")
    }

    @Test("an unprivileged client flooding the face with refused claims over many connections does not deny root's claims and releases (the bus's reply limit is not a refusal), and makes motiond log a bounded number of lines",
          .enabled(if: HotplugTests.hasDBusTools && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs dbus-daemon, busctl, gdbus and setpriv"))
    func floodDoesNotDenyOthers() async throws {
        // Debian's system bus lets a connection wait for 128 replies; 16 here, so a flood
        // reaches it with a handful of clients.
        let bus = try await SystemBus(limits: ["max_replies_per_connection": 16])
        // The flooder runs as nobody: it must reach the bus's socket.
        chmod(bus.directory.path, 0o755)
        let polkit = try #require(try await bus.startPolkitAllowingRoot(), "python3-dbusmock is not installed")
        defer { polkit.terminate() }
        let daemon = try await Self.served(on: bus)
        defer { _ = daemon.stop() }
        let probe = try await Emulation.run(["/usr/bin/python3", "-c", "import dbus, dbus.mainloop.glib, gi"])
        try #require(probe.status == 0, "python3-dbus and python3-gi are needed (python3-dbusmock brings them)")

        // 16 connections keeping 14 claims each in flight (the bus's limit for the flooder's
        // own connections), every answer followed by a new call, for 8 s.
        let flood = """
        import collections, dbus, dbus.mainloop.glib, os, sys
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        counts = collections.Counter()
        def fire(proxy):
            proxy.ClaimAccelerometer(dbus_interface="net.hadess.SensorProxy", timeout=60,
                                     reply_handler=lambda: done(proxy, "ok"), error_handler=lambda e: done(proxy, e.get_dbus_name()))
        def done(proxy, what):
            counts[what] += 1
            fire(proxy)
        for _ in range(16):
            proxy = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"]).get_object("net.hadess.SensorProxy", "/net/hadess/SensorProxy", introspect=False)
            for _ in range(14):
                fire(proxy)
        loop = GLib.MainLoop()
        GLib.timeout_add(100, lambda: print("flooding", flush=True))
        GLib.timeout_add(8000, loop.quit)
        loop.run()
        print(dict(counts), flush=True)
        """
        // Root's client: 20 claims and 20 releases, one after the other, on one connection.
        let legitimate = """
        import dbus, os
        proxy = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"]).get_object("net.hadess.SensorProxy", "/net/hadess/SensorProxy", introspect=False)
        failures = []
        for _ in range(20):
            for method in ("ClaimAccelerometer", "ReleaseAccelerometer"):
                try:
                    proxy.get_dbus_method(method, "net.hadess.SensorProxy")(timeout=60)
                except dbus.exceptions.DBusException as error:
                    failures.append(method + ": " + error.get_dbus_name() + ": " + error.get_dbus_message())
        print(len(failures), "failures", failures, flush=True)
        """
        let linesBefore = daemon.process.stderr.split(separator: "\n").count
        let flooder = try RunningProcess(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", flood],
                                         environment: bus.environment())
        defer { flooder.terminate() }
        #expect(await flooder.wait(timeout: 20) { $0.stdout.contains("flooding") }, "\(flooder.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        let root = try await Emulation.run(["/usr/bin/python3", "-c", legitimate], environment: bus.environment(), timeout: 120)
        #expect(root.stdout.hasPrefix("0 failures"), "root's calls failed: \(root.stdout) \(root.stderr)")
        #expect(await flooder.wait(timeout: 30) { $0.stdout.contains("{") }, "\(flooder.stdout) \(flooder.stderr)")
        #expect(flooder.stdout.contains("org.freedesktop.DBus.Error.AccessDenied"), "the flooder is refused: \(flooder.stdout)")
        #expect(!flooder.stdout.contains("'ok'"), "never allowed: \(flooder.stdout)")

        // The face's own lines (the pipeline's, for root's 20 claims, are root's doing).
        let lines = daemon.process.stderr.split(separator: "\n").dropFirst(linesBefore).filter { $0.contains("[MotionDBus]") }
        print("the D-Bus face's log during an 8 s flood from 16 connections: \(lines.count) lines; the flooder's answers: \(flooder.stdout.split(separator: "\n").last ?? "")")
        #expect(lines.count < 250, "a few lines per client and interval, not one per call: \(lines.count) lines; the last: \(lines.suffix(20).joined(separator: "\n"))")
        #expect(daemon.process.isRunning)
    }

    @Test("a system bus that accepts the connection and never answers does not hold up the stop: SIGTERM ends motiond within seconds, exit 0, saying why")
    func stopsWithAHungBus() async throws {
        let hung = try HungBus()
        var environment = RunningProcess.plainEnvironment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = hung.address
        let daemon = try ServedDaemon(["--source", "sim:", "--sensor-proxy", "--no-config"], environment: environment)
        defer {
            daemon.process.terminate()
            try? FileManager.default.removeItem(at: daemon.directory)
        }
        _ = try await daemon.connect()
        #expect(await hung.waitForConnection(timeout: 10), "motiond connects to the bus: \(daemon.process.stderr)")
        // Time to be well into the connection's set-up.
        try await Task.sleep(for: .milliseconds(500))
        kill(daemon.process.pid, SIGTERM)
        // The bound is 2 s; generous here for a loaded machine.
        let exited = await daemon.process.wait(timeout: 5) { $0.status != -1 }
        #expect(exited, "still running 5 s after SIGTERM: \(daemon.process.stderr.suffix(2000))")
        #expect(daemon.process.status == 0, "\(daemon.process.stderr.suffix(2000))")
        let log = daemon.process.stderr
        #expect(log.contains("stopping: SIGTERM") && log.contains("the system bus never completed motiond's connection"), "\(log.suffix(2000))")
    }
}

extension HotplugTests {
    @Test("a claim whose client leaves the bus before polkit answers is not recorded: polkit's later yes claims nothing, the accelerometer stays unread",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func claimOfDepartedClientNotRecorded() async throws {
        let proxied = try await ProxiedDaemon()
        defer { proxied.stop() }
        try #require(proxied.polkit != nil, "python3-dbusmock is not installed")
        let bus = proxied.bus
        _ = try await bus.polkitMock("SimulateHang", ["true"])
        let claimer = try SensorProxyDefectTests.claimInBackground(on: bus)
        let deadline = Date().addingTimeInterval(10)
        while try await bus.polkitMock("HaveHangingCalls").stdout.contains("false"), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await bus.polkitMock("HaveHangingCalls").stdout.contains("true"), "polkit holds the question: \(proxied.daemon.process.stderr)")
        claimer.terminate()
        // Calls after the departure and after polkit's answer: motiond has handled each when
        // it answers the call that follows it.
        _ = try await proxied.property("HasAccelerometer")
        _ = try await bus.polkitMock("ReleaseHangingCalls")
        _ = try await proxied.property("HasAccelerometer")

        let asker = try await proxied.daemon.connect()
        var id = 0
        #expect(try await proxied.waitForPeriod(asker, from: &id, timeout: 2) { $0 != nil } == false,
                "nobody claims: the accelerometer is not read; \(proxied.daemon.process.stderr.suffix(2000))")
        #expect(proxied.daemon.process.stderr.contains("dropped: it left the bus before polkit answered"), "\(proxied.daemon.process.stderr.suffix(2000))")
    }
}
