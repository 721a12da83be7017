import Foundation
import Glibc
@testable import TestSupport
import Testing

/// motiond's D-Bus face end to end, against real parts: a private system bus (dbus-daemon with
/// motiond's policy file), python-dbusmock's polkit, Debian's `monitor-sensor` and `busctl` as
/// the clients, emulated sensors (a live umockdev testbed, hence the serialized hot-plug
/// suite) — and iio-sensor-proxy itself on the same device and scenario, side by side.
extension HotplugTests {
    static let desktopAccel = restAccelSyspath
    /// `desk.umockdev`'s light (raw 200 × scale 0.5 = 100 lux) and proximity (raw 10, near
    /// level 100 from udev) sensors.
    static let deskLight = "/sys/devices/platform/test-als/iio:device1"
    static let deskProximity = "/sys/devices/platform/test-prox/iio:device2"
    static let claimAction = "net.hadess.SensorProxy.claim-sensor"
    static let proxyObject = ["/net/hadess/SensorProxy", "net.hadess.SensorProxy"]

    /// iio-sensor-proxy's daemon where Debian puts it (`/usr/sbin` in 3.0, `/usr/libexec` later).
    static var iioSensorProxy: String? {
        ["/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var hasDBusTools: Bool {
        ["/usr/bin/dbus-daemon", "/usr/bin/busctl", "/usr/bin/monitor-sensor", "/usr/bin/gdbus"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// One step of the shared scenario: attribute changes (in order) and the line
    /// `monitor-sensor` prints for it.
    struct ScenarioStep: Sendable {
        var changes: [(device: String, attribute: String, value: String)]
        var line: String
    }

    /// The four screen orientations, in an order that never passes through an ambiguous pose
    /// between two attribute writes (the intermediate poses are diagonals, where both daemons
    /// keep their orientation); then the light brightening, a hand coming near the proximity
    /// sensor and going away (far from the near level both ways: the two daemons' hysteresis
    /// differs just around it).
    static let scenario: [ScenarioStep] = [
        .init(changes: [(desktopAccel, "in_accel_x_raw", "256"), (desktopAccel, "in_accel_y_raw", "0")],
              line: "    Accelerometer orientation changed: left-up"),
        .init(changes: [(desktopAccel, "in_accel_y_raw", "256"), (desktopAccel, "in_accel_x_raw", "0")],
              line: "    Accelerometer orientation changed: bottom-up"),
        .init(changes: [(desktopAccel, "in_accel_x_raw", "-256"), (desktopAccel, "in_accel_y_raw", "0")],
              line: "    Accelerometer orientation changed: right-up"),
        .init(changes: [(desktopAccel, "in_accel_y_raw", "-256"), (desktopAccel, "in_accel_x_raw", "0")],
              line: "    Accelerometer orientation changed: normal"),
        .init(changes: [(deskLight, "in_illuminance_raw", "500")], line: "    Light changed: 250.000000 (lux)"),
        .init(changes: [(deskProximity, "in_proximity_raw", "150")], line: "    Proximity value changed: 1"),
        .init(changes: [(deskProximity, "in_proximity_raw", "50")], line: "    Proximity value changed: 0"),
    ]

    /// What one daemon showed `monitor-sensor` in the scenario.
    struct ScenarioRun {
        /// The state after start-up: orientation, light and proximity as the last lines
        /// before the first step gave them.
        var initial: [String: String]
        /// Every line from the first step on.
        var lines: [String]
        /// Seconds from each step's last attribute write to its line.
        var latencies: [Double]
    }

    /// The sensors' state in `monitor-sensor`'s lines: the `=== Has …` line's value, then every
    /// change.
    static func state(_ lines: [String]) -> [String: String] {
        var state: [String: String] = [:]
        for line in lines {
            if let value = line.between("=== Has accelerometer (orientation: ", ")") { state["orientation"] = value }
            if let value = line.between("=== Has ambient light sensor (value: ", ", unit: lux)") { state["light"] = value }
            if let value = line.between("=== Has proximity sensor (near: ", ")") { state["near"] = value }
            if let value = line.between("    Accelerometer orientation changed: ", "") { state["orientation"] = value }
            if let value = line.between("    Light changed: ", " (lux)") { state["light"] = value }
            if let value = line.between("    Proximity value changed: ", "") { state["near"] = value }
        }
        return state
    }

    /// Plays the scenario on `desk.umockdev` with `command` (under the testbed, its system bus
    /// a private one, `locale` added to its environment) watched by `monitor-sensor`.
    static func playScenario(_ command: [String], locale: [String: String] = [:]) async throws -> ScenarioRun {
        let desk = try await DeskProxy(command, locale: locale)
        let (testbed, daemon) = (desk.testbed, desk.daemon)
        defer { withExtendedLifetime(desk) {} } // the daemon runs until the end
        let monitor = try MonitorSensor(bus: desk.bus)
        for has in ["=== Has accelerometer", "=== Has ambient light sensor", "=== Has proximity sensor"] {
            guard await monitor.wait(for: has, timeout: 15) != nil else {
                throw TestFailure("monitor-sensor never printed \(has): \(monitor.lines.map(\.text)); \(command[0]): \(daemon.stderr.suffix(2000))")
            }
        }
        // iio-sensor-proxy before 3.6 answers a claim before its first reading and sends the
        // values as changes within one poll (700 ms); let them come.
        try await Task.sleep(for: .milliseconds(1600))
        let start = monitor.lines.count
        let initial = state(monitor.lines.map(\.text))
        var latencies: [Double] = []
        for step in scenario {
            let before = monitor.lines.count
            for change in step.changes { testbed.setAttribute(change.device, change.attribute, change.value + "\n") }
            let written = Date().timeIntervalSince1970
            guard let arrived = await monitor.wait(for: step.line, from: before, timeout: 10) else {
                throw TestFailure("\(command[0]): no '\(step.line)' after the step; lines: \(monitor.lines.map(\.text)); log: \(daemon.stderr.suffix(2000))")
            }
            latencies.append(arrived - written)
            // Anything else the step causes arrives within a poll of iio-sensor-proxy's.
            try await Task.sleep(for: .milliseconds(900))
        }
        return ScenarioRun(initial: initial, lines: monitor.lines[start...].map(\.text), latencies: latencies)
    }

    /// A daemon serving net.hadess.SensorProxy (`command`: motiond's face or iio-sensor-proxy)
    /// on `desk.umockdev`, on a private system bus whose polkit allows claims, `locale` added to
    /// its environment; both stopped when released.
    final class DeskProxy {
        let testbed = Testbed()
        let bus: SystemBus
        let daemon: RunningProcess
        private let polkit: RunningProcess?

        init(_ command: [String], locale: [String: String] = [:]) async throws {
            try testbed.add(try Emulation.fixtureText("desk.umockdev"))
            bus = try await SystemBus()
            polkit = try await bus.startPolkit(allowing: [claimAction])
            do {
                daemon = try RunningProcess(command, environment: bus.environment(testbed.environment).merging(locale) { $1 })
            } catch {
                polkit?.terminate()
                throw error
            }
            guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
                throw TestFailure("\(command[0]) did not own net.hadess.SensorProxy: \(daemon.stderr.suffix(2000))")
            }
        }

        deinit {
            daemon.terminate()
            polkit?.terminate()
        }
    }

    static func motiondSensorProxy(_ directory: URL, _ extra: [String] = []) -> [String] {
        [Emulation.motiond, "--source", "local:", "--sensor-proxy", "--no-config", "--socket",
         directory.appendingPathComponent("motiond.sock").path, "--log-level", "debug"] + extra
    }

    @Test("monitor-sensor shows the same lines against motiond (in a decimal-comma locale) as against iio-sensor-proxy for the same device movements and light and proximity changes; latency side by side",
          .enabled(if: hasDBusTools && iioSensorProxy != nil, "needs dbus-daemon, busctl, gdbus and iio-sensor-proxy (scripts/install-deps.sh test)"),
          .enabled(if: DecimalCommaLocale.isAvailable, "needs the de_DE locale source (Debian's locales package) for the LC_NUMERIC check"))
    func sameLinesAsIIOSensorProxy() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A German desktop: scales like 0.5 in sysfs must not be read as 0 or 5.
        let ours = try await Self.playScenario(Self.motiondSensorProxy(directory), locale: try await DecimalCommaLocale.environment())
        let theirs = try await Self.playScenario([try #require(Self.iioSensorProxy), "-v"])

        #expect(ours.initial == ["orientation": "normal", "light": "100.000000", "near": "0"], "\(ours.initial)")
        #expect(ours.initial == theirs.initial)
        #expect(ours.lines == theirs.lines, "motiond: \(ours.lines)\niio-sensor-proxy: \(theirs.lines)")
        #expect(ours.lines == Self.scenario.map(\.line), "exactly one line per step: no repeats, no storm")

        func summary(_ latencies: [Double]) -> String {
            let sorted = latencies.sorted()
            return "median \(Int(sorted[sorted.count / 2] * 1000)) ms, max \(Int(sorted.last! * 1000)) ms"
        }
        let turns = 4
        print("D-Bus step latency (device change → monitor-sensor line), \(turns) orientation steps: "
              + "motiond \(summary(Array(ours.latencies.prefix(turns)))); iio-sensor-proxy \(summary(Array(theirs.latencies.prefix(turns))))")
        print("D-Bus light and proximity steps (ms): motiond \(ours.latencies.dropFirst(turns).map { Int($0 * 1000) }); "
              + "iio-sensor-proxy \(theirs.latencies.dropFirst(turns).map { Int($0 * 1000) })")
    }
}

extension HotplugTests {
    /// motiond serving the D-Bus face and its socket on the emulated accelerometer, on a
    /// private system bus with polkit allowing `allowed`.
    struct ProxiedDaemon {
        let testbed: Testbed
        let bus: SystemBus
        let polkit: RunningProcess?
        let daemon: ServedDaemon

        /// `devices`: a umockdev description to use instead of the `fixture` file.
        init(allowed: [String] = [HotplugTests.claimAction], fixture: String = "test-accel.umockdev", devices: String? = nil) async throws {
            testbed = Testbed()
            try testbed.add(try devices ?? Emulation.fixtureText(fixture))
            bus = try await SystemBus()
            polkit = try await bus.startPolkit(allowing: allowed)
            daemon = try ServedDaemon(["--source", "local:", "--sensor-proxy", "--no-config"], environment: bus.environment(testbed.environment))
            guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
                throw TestFailure("motiond did not own net.hadess.SensorProxy: \(daemon.process.stderr.suffix(2000))")
            }
        }

        func stop() {
            _ = daemon.stop()
            polkit?.terminate()
        }

        /// A property of the main object, as busctl prints it (`b true`, `s "normal"`).
        func property(_ name: String) async throws -> String {
            try await bus.busctl(["get-property", "net.hadess.SensorProxy"] + HotplugTests.proxyObject + [name])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The accelerometer's hardware period in a status reply (nil: not read).
        func accelerometerPeriod(_ client: SocketClient, id: Int) async throws -> Double? {
            try await client.send(.status(id: id))
            let status = try #require(try await client.reply(id)?["status"] as? [String: Any])
            let sensors = try #require(status["sensors"] as? [String: Any])
            return (sensors["accelerometer"] as? [String: Any])?["period"] as? Double
        }

        /// Asks for the status until the accelerometer's period satisfies `condition`.
        func waitForPeriod(_ client: SocketClient, from id: inout Int, timeout: Double = 10, _ condition: (Double?) -> Bool) async throws -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                id += 1
                if condition(try await accelerometerPeriod(client, id: id)) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }
    }

    @Test("a claim reads the accelerometer, answered with the orientation in place; PropertiesChanged only to the claimant; a claimant killed without releasing stops the reading",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func claimsFollowClients() async throws {
        let proxied = try await ProxiedDaemon()
        defer { proxied.stop() }
        let asker = try await proxied.daemon.connect()
        var id = 0
        #expect(try await proxied.waitForPeriod(asker, from: &id) { $0 == nil }, "nobody claims: the accelerometer is not read")
        #expect(try await proxied.property("HasAccelerometer") == "b true")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "undefined""#, "never read yet")

        // A claim from the cold: busctl's call returns once the first orientation is in.
        let started = Date()
        let claim = try await proxied.bus.busctl(["call", "net.hadess.SensorProxy"] + Self.proxyObject + ["ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.stderr)")
        print("ClaimAccelerometer round trip from the cold (busctl, polled accelerometer): \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "normal""#, "valid right after the claim")
        #expect(try await proxied.property("AccelerometerTilt") == #"s "vertical""#, "standing upright")

        // A listener that never claims, beside monitor-sensor that does.
        let listener = try RunningProcess(["gdbus", "monitor", "--system", "--dest", "net.hadess.SensorProxy"], environment: proxied.bus.environment())
        defer { listener.terminate() }
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has accelerometer (orientation: normal)") != nil, "\(monitor.lines)")
        #expect(try await proxied.waitForPeriod(asker, from: &id) { $0 != nil }, "claimed: read")
        let before = monitor.lines.count
        proxied.testbed.setAttribute(Self.desktopAccel, "in_accel_x_raw", "256\n")
        proxied.testbed.setAttribute(Self.desktopAccel, "in_accel_y_raw", "0\n")
        #expect(await monitor.wait(for: "Accelerometer orientation changed: left-up", from: before) != nil, "\(monitor.lines)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(!listener.stdout.contains("AccelerometerOrientation"), "a client without a claim gets no values: \(listener.stdout)")

        monitor.crash()
        #expect(try await proxied.waitForPeriod(asker, from: &id) { $0 == nil }, "the claimant vanished: no longer read")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "left-up""#, "the last value stays, as iio-sensor-proxy's")
    }

    @Test("polkit refusing the claim: AccessDenied, nothing read",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func polkitRefuses() async throws {
        let proxied = try await ProxiedDaemon(allowed: [])
        defer { proxied.stop() }
        try #require(proxied.polkit != nil, "python3-dbusmock is not installed")
        let claim = try await Emulation.run(["gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path", Self.proxyObject[0],
                                             "--method", "net.hadess.SensorProxy.ClaimAccelerometer"], environment: proxied.bus.environment())
        #expect(claim.status != 0)
        #expect(claim.stderr.contains("org.freedesktop.DBus.Error.AccessDenied: Not Authorized"), "\(claim.stderr)")
        let asker = try await proxied.daemon.connect()
        var id = 0
        #expect(try await proxied.waitForPeriod(asker, from: &id, timeout: 1) { $0 != nil } == false, "refused: not read")
    }

    @Test("the accelerometer unplugged while claimed: HasAccelerometer false, then true again when it returns",
          .enabled(if: hasDBusTools && Testbed.canSendUevents, "needs the D-Bus tools and the umockdev preload"))
    func unplugWhileClaimed() async throws {
        let proxied = try await ProxiedDaemon()
        defer { proxied.stop() }
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "Accelerometer orientation changed: normal") != nil, "\(monitor.lines)")
        // The files go first, so no rescan finds the device again after the uevent.
        proxied.testbed.remove(Self.desktopAccel)
        proxied.testbed.uevent(Self.desktopAccel, "remove")
        #expect(await monitor.wait(for: "--- Accelerometer disappeared") != nil, "\(monitor.lines)")
        #expect(try await proxied.property("HasAccelerometer") == "b false", "\(proxied.daemon.process.stderr.suffix(3000))")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "undefined""#)
        // umockdev cannot reuse a removed node name within one testbed: it returns as device1.
        let replugged = try Emulation.fixtureText("test-accel.umockdev").replacingOccurrences(of: "iio:device0", with: "iio:device1")
            .replacingOccurrences(of: "MINOR=0", with: "MINOR=1").replacingOccurrences(of: "dev=237:0", with: "dev=237:1")
        try proxied.testbed.add(replugged)
        proxied.testbed.uevent(Self.desktopAccel.replacingOccurrences(of: "device0", with: "device1"), "add")
        #expect(await monitor.wait(for: "+++ Accelerometer appeared") != nil, "\(monitor.lines)")
        #expect(try await proxied.property("HasAccelerometer") == "b true")
    }

    @Test("a claim waiting for the first reading fails when the sensor is unplugged meanwhile, with iio-sensor-proxy's message",
          .enabled(if: hasDBusTools && Testbed.canSendUevents, "needs the D-Bus tools and the umockdev preload"))
    func unplugWhileClaimPending() async throws {
        let proxied = try await ProxiedDaemon()
        defer { proxied.stop() }
        // The accelerometer read for a socket client; then its readings stop parsing, so a claim
        // waits for a first orientation that does not come.
        let reader = try await proxied.daemon.connect()
        try await reader.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.02)))
        #expect(try await reader.next(type: "accelerometer", timeout: 5) != nil)
        proxied.testbed.setAttribute(Self.desktopAccel, "in_accel_x_raw", "garbage\n")
        try await Task.sleep(for: .milliseconds(200))
        let bus = proxied.bus
        let claim = Task { try await bus.busctl(["call", "net.hadess.SensorProxy"] + HotplugTests.proxyObject + ["ClaimAccelerometer"]) }
        #expect(await proxied.daemon.process.wait(timeout: 5, for: { $0.stderr.contains("claims the accelerometer") }), "\(proxied.daemon.process.stderr)")
        try await Task.sleep(for: .milliseconds(50))
        // The uevent first: umockdev sends none for a device already gone.
        proxied.testbed.uevent(Self.desktopAccel, "remove")
        proxied.testbed.remove(Self.desktopAccel)
        let answer = try await claim.value
        #expect(answer.status != 0 && answer.stderr.contains("Sensor removed while waiting for it to start up"), "\(answer.status) \(answer.stdout) \(answer.stderr)")
        #expect(try await proxied.property("HasAccelerometer") == "b false")
    }

    @Test("a convertible's base accelerometer is not offered as the display's (HasAccelerometer false, the socket still has it); the display one, plugged in, is",
          .enabled(if: hasDBusTools && Testbed.canSendUevents, "needs the D-Bus tools and the umockdev preload"))
    func baseAccelerometerNotOffered() async throws {
        // The BOSC0200 pair of the convertible fixture: device0 in the base, device1 in the display.
        let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
        let base = try #require(blocks.first { $0.contains("label=accel-base") })
        let display = try #require(blocks.first { $0.contains("label=accel-display") && $0.contains("bmc150_accel") })
        let proxied = try await ProxiedDaemon(devices: base + "\n")
        defer { proxied.stop() }
        let asker = try await proxied.daemon.connect()
        try await asker.send(.status(id: 1))
        let sensors = try #require((try await asker.reply(1)?["status"] as? [String: Any])?["sensors"] as? [String: Any])
        let accelerometer = try #require(sensors["accelerometer"] as? [String: Any])
        #expect(accelerometer["available"] as? Bool == true && accelerometer["location"] as? String == "base", "\(accelerometer)")
        #expect(try await proxied.property("HasAccelerometer") == "b false")

        // A claim succeeds and reads nothing, as for a sensor that is not there.
        let claim = try await proxied.bus.busctl(["call", "net.hadess.SensorProxy"] + HotplugTests.proxyObject + ["ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.stderr)")
        var id = 1
        #expect(try await proxied.waitForPeriod(asker, from: &id, timeout: 1) { $0 != nil } == false, "the base accelerometer is not read for the claim")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "undefined""#)

        try proxied.testbed.add(display + "\n")
        proxied.testbed.uevent("/sys/devices/platform/80860F41:03/i2c-3/i2c-BOSC0200:00/iio:device1", "add")
        let deadline = Date().addingTimeInterval(10)
        while try await proxied.property("HasAccelerometer") != "b true", Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await proxied.property("HasAccelerometer") == "b true", "the display accelerometer is offered once it appears")
    }

    @Test("while iio-sensor-proxy owns the name motiond waits for it, and serves it once iio-sensor-proxy is gone",
          .enabled(if: hasDBusTools && iioSensorProxy != nil, "needs the D-Bus tools and iio-sensor-proxy"))
    func takesTheNameOver() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("test-accel.umockdev"))
        let bus = try await SystemBus()
        let peer = try RunningProcess([try #require(Self.iioSensorProxy)], environment: bus.environment(testbed.environment))
        defer { peer.terminate() }
        #expect(try await bus.waitForOwner("net.hadess.SensorProxy"))
        let daemon = try ServedDaemon(["--source", "local:", "--sensor-proxy", "--no-config"], environment: bus.environment(testbed.environment))
        defer { _ = daemon.stop() }
        #expect(await daemon.process.wait(timeout: 10) { $0.stderr.contains("owned by another process") }, "\(daemon.process.stderr)")
        peer.terminate()
        #expect(await daemon.process.wait(timeout: 10) { $0.stderr.contains("serving net.hadess.SensorProxy") }, "\(daemon.process.stderr)")
        let monitor = try MonitorSensor(bus: bus)
        #expect(await monitor.wait(for: "Accelerometer orientation changed: normal") != nil, "\(monitor.lines)")
    }
}

/// The D-Bus face on the simulated IMU (no testbed: these run in parallel with the rest, and
/// under ThreadSanitizer in `make check-tsan`, where the daemon under test is sanitized).
@Suite("D-Bus face on the simulated IMU")
struct SensorProxySimTests {
    @Test("[dbus] sensor-proxy follows a reload: on, then off again",
          .enabled(if: HotplugTests.hasDBusTools, "needs dbus-daemon and busctl"))
    func reloadSwitchesTheFace() async throws {
        let bus = try await SystemBus()
        let daemon = try ServedDaemon(["--source", "sim:"], configuration: "[dbus]\nsensor-proxy = false\n", environment: bus.environment())
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        #expect(try await bus.hasOwner("net.hadess.SensorProxy") == false)
        try "[dbus]\nsensor-proxy = true\n".write(toFile: daemon.configurationPath, atomically: true, encoding: .utf8)
        kill(daemon.process.pid, SIGHUP)
        #expect(try await bus.waitForOwner("net.hadess.SensorProxy"), "\(daemon.process.stderr)")
        try "[dbus]\nsensor-proxy = false\n".write(toFile: daemon.configurationPath, atomically: true, encoding: .utf8)
        kill(daemon.process.pid, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while try await bus.hasOwner("net.hadess.SensorProxy"), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await bus.hasOwner("net.hadess.SensorProxy") == false, "\(daemon.process.stderr)")
    }

    @Test("the compass: HasCompass with a magnetometer, a claim answered with the fused heading; the accelerometer beside it",
          .enabled(if: HotplugTests.hasDBusTools, "needs dbus-daemon and busctl"))
    func compassAndOrientation() async throws {
        let bus = try await SystemBus()
        let daemon = try ServedDaemon(["--source", "sim:", "--sensor-proxy", "--no-config"], environment: bus.environment())
        defer { _ = daemon.stop() }
        #expect(try await bus.waitForOwner("net.hadess.SensorProxy"), "\(daemon.process.stderr)")
        let compass = ["/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass"]
        let has = try await bus.busctl(["get-property", "net.hadess.SensorProxy"] + compass + ["HasCompass"])
        #expect(has.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true", "\(has.stderr)")
        // One connection claims and reads (busctl would release when it exits): a shell
        // pipeline is not one connection, so gdbus's call and a property read would not do.
        // python-dbus (from python3-dbusmock) holds the claims over one connection.
        let script = """
        import dbus, os
        bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
        compass = bus.get_object("net.hadess.SensorProxy", "/net/hadess/SensorProxy/Compass")
        compass.ClaimCompass(dbus_interface="net.hadess.SensorProxy.Compass")
        print(dbus.Interface(compass, "org.freedesktop.DBus.Properties").Get("net.hadess.SensorProxy.Compass", "CompassHeading"))
        main = bus.get_object("net.hadess.SensorProxy", "/net/hadess/SensorProxy")
        main.ClaimAccelerometer(dbus_interface="net.hadess.SensorProxy")
        print(dbus.Interface(main, "org.freedesktop.DBus.Properties").Get("net.hadess.SensorProxy", "AccelerometerOrientation"))
        main.ReleaseAccelerometer(dbus_interface="net.hadess.SensorProxy")
        compass.ReleaseCompass(dbus_interface="net.hadess.SensorProxy.Compass")
        """
        let probe = try await Emulation.run(["/usr/bin/python3", "-c", "import dbus"])
        try #require(probe.status == 0, "python3-dbus is not installed (python3-dbusmock brings it)")
        let result = try await Emulation.run(["/usr/bin/python3", "-c", script], environment: bus.environment())
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let heading = try #require(lines.first.flatMap(Double.init), "\(result.stdout)")
        #expect((0..<360).contains(heading), "a heading, not the unknown −1, once the claim returns")
        // The simulated device starts lying flat: undefined until it first stands upright.
        #expect(lines.count == 2 && ["undefined", "normal", "bottom-up", "left-up", "right-up"].contains(lines[1]), "\(lines)")
    }
}

private extension String {
    /// The text between `prefix` (which the string must start with) and `suffix` (which it
    /// must end with; "" for the rest of the line).
    func between(_ prefix: String, _ suffix: String) -> String? {
        guard hasPrefix(prefix), hasSuffix(suffix), count >= prefix.count + suffix.count else { return nil }
        return String(dropFirst(prefix.count).dropLast(suffix.count))
    }
}
