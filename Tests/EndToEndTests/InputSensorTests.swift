import Foundation
@testable import TestSupport
import Testing

/// The sensors outside IIO that iio-sensor-proxy reads (docs/SENSORS.md, "Input and hwmon
/// sensors"), end to end: the real motiond on a live umockdev testbed, its evdev nodes answering
/// `EVIOCGABS` / `EVIOCGSW` from ioctl recordings (`Tests/Fixtures/input-*`), seen through the
/// D-Bus face (a private system bus, python-dbusmock's polkit) and through the socket. The
/// cases and values are iio-sensor-proxy's own tests' (test_hwmon_light, test_input_accel,
/// test_input_proximity).
extension HotplugTests {
    /// An applesmc-style light sensor as iio-sensor-proxy's test has it: a platform device with
    /// `light` `(128,128)` that udev types `hwmon-als`.
    static let hwmonLight = "/sys/devices/platform/hwmon-als"
    static let hwmonLightDevice = """
        P: /devices/platform/hwmon-als
        E: SUBSYSTEM=platform
        E: IIO_SENSOR_PROXY_TYPE=hwmon-als
        A: light=(128,128)\\n


        """

    /// motiond on `fixture` (a umockdev description) with the ioctl recording `ioctl` (a path)
    /// answering `node`, serving the D-Bus face and its socket. The recording is loaded after
    /// start: nothing opens the node before a client asks for its sensor.
    static func inputDaemon(_ fixture: String, node: String, ioctl: String) async throws -> ProxiedDaemon {
        let proxied = try await ProxiedDaemon(devices: try Emulation.fixtureText(fixture))
        try proxied.testbed.loadIoctl(node, ioctl)
        return proxied
    }

    /// A D-Bus double property as a number (busctl prints `d 50.1961`).
    static func number(_ property: String) -> Double? {
        property.hasPrefix("d ") ? Double(property.dropFirst(2)) : nil
    }

    @Test("hwmon light (applesmc): HasAmbientLight, lux and 0 before a claim; after ClaimLight the level in iio-sensor-proxy's vendor unit, 50 for (128,128), 100 for (255,255); a value that is no reading warned once; the socket says unit vendor; the device removed: unavailable",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func hwmonLightLevel() async throws {
        let proxied = try await ProxiedDaemon(devices: Self.hwmonLightDevice)
        defer { proxied.stop() }
        #expect(try await proxied.property("HasAmbientLight") == "b true", "\(proxied.daemon.process.stderr.suffix(3000))")
        #expect(try await proxied.property("HasAccelerometer") == "b false")
        #expect(try await proxied.property("LightLevelUnit") == #"s "lux""#, "iio-sensor-proxy's default before a reading")
        #expect(try await proxied.property("LightLevel") == "d 0")

        let claim = try await proxied.bus.busctl(["call", "net.hadess.SensorProxy"] + Self.proxyObject + ["ClaimLight"])
        #expect(claim.status == 0, "\(claim.stderr)")
        #expect(Self.number(try await proxied.property("LightLevel")).map(Int.init) == 50, "(128,128): 128 / 255 of the range")
        #expect(try await proxied.property("LightLevelUnit") == #"s "vendor""#)

        // monitor-sensor holds the claim while the light brightens.
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has ambient light sensor (value: 50.196078, unit: vendor)") != nil, "\(monitor.lines)")
        let before = monitor.lines.count
        proxied.testbed.setAttribute(Self.hwmonLight, "light", "(255,255)\n")
        #expect(await monitor.wait(for: "    Light changed: 100.000000 (vendor)", from: before) != nil, "\(monitor.lines)")
        #expect(try await proxied.property("LightLevel") == "d 100")

        // A value that is no reading: one warning naming the attribute, and the level stays;
        // a good value is read again.
        proxied.testbed.setAttribute(Self.hwmonLight, "light", "garbage\n")
        #expect(await proxied.daemon.process.wait(timeout: 10) { $0.stderr.contains("\(Self.hwmonLight)/light has unparseable value 'garbage'") },
                "\(proxied.daemon.process.stderr.suffix(3000))")
        #expect(try await proxied.property("LightLevel") == "d 100")
        let afterGarbage = monitor.lines.count
        proxied.testbed.setAttribute(Self.hwmonLight, "light", "(0,0)\n")
        #expect(await monitor.wait(for: "    Light changed: 0.000000 (vendor)", from: afterGarbage) != nil, "\(monitor.lines)")
        #expect(proxied.daemon.process.stderr.components(separatedBy: "unparseable value 'garbage'").count == 2, "warned once")

        // The socket: the light sensor's availability says its unit; its values are the same levels.
        let client = try await proxied.daemon.connect()
        try await client.send(.subscribe(.init(id: 1, stream: .light, interval: 0.1)))
        let light = try #require(try await client.next(type: "light", timeout: 10))
        #expect(light["lux"] as? Double == 0, "the level of (0,0): \(light)")
        try await client.send(.status(id: 2))
        let sensors = try #require((try await client.reply(2)?["status"] as? [String: Any])?["sensors"] as? [String: Any])
        let state = try #require(sensors["light"] as? [String: Any])
        #expect(state["available"] as? Bool == true && state["unit"] as? String == "vendor", "\(state)")
        #expect((state["reason"] as? String)?.contains("hwmon") == true, "\(state)")

        // The device gone: the light is unavailable with the reason, and the D-Bus face says so.
        proxied.testbed.remove(Self.hwmonLight)
        #expect(await monitor.wait(for: "--- Light sensor disappeared", from: afterGarbage) != nil, "\(monitor.lines)")
        #expect(try await proxied.property("HasAmbientLight") == "b false")
        #expect(proxied.daemon.process.stderr.contains("lost light on \(Self.hwmonLight) (hwmon-als), hwmon light"), "\(proxied.daemon.process.stderr.suffix(2000))")
    }

    @Test("input accelerometer (lis3lv02d): HasAccelerometer, undefined before a claim and normal after it; the socket gets its samples in G",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func inputAccelerometer() async throws {
        let proxied = try await Self.inputDaemon("input-accel.umockdev", node: "/dev/input/event7", ioctl: Emulation.fixture("input-accel.ioctl"))
        defer { proxied.stop() }
        #expect(try await proxied.property("HasAccelerometer") == "b true", "\(proxied.daemon.process.stderr.suffix(3000))")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "undefined""#)
        let claim = try await proxied.bus.busctl(["call", "net.hadess.SensorProxy"] + Self.proxyObject + ["ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.stderr)")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "normal""#, "\(proxied.daemon.process.stderr.suffix(3000))")

        // (0, −256, 0) counts: 1 G along −y, standing portrait.
        let client = try await proxied.daemon.connect()
        try await client.send(.subscribe(.init(id: 1, stream: .accelerometer, interval: 0.02)))
        let sample = try #require(try await client.next(type: "accelerometer", timeout: 10))
        let acceleration = try #require(sample["acceleration"] as? [String: Any])
        #expect(acceleration["x"] as? Double == 0 && acceleration["y"] as? Double == -1 && acceleration["z"] as? Double == 0, "\(sample)")
        try await client.send(.status(id: 2))
        let sensors = try #require((try await client.reply(2)?["status"] as? [String: Any])?["sensors"] as? [String: Any])
        let state = try #require(sensors["accelerometer"] as? [String: Any])
        #expect((state["reason"] as? String)?.contains("evdev /dev/input/event7") == true && state["mode"] as? String == "polling", "\(state)")
    }

    @Test("input proximity switch (SW_FRONT_PROXIMITY): HasProximity, ProximityNear false while the switch is off and true while it is on; the socket's proximity stream says near",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func inputProximity() async throws {
        // One testbed at a time (umockdev's is per process): the first is gone before the next.
        do {
            let far = try await Self.inputDaemon("input-proximity.umockdev", node: "/dev/input/event3", ioctl: Emulation.fixture("input-proximity.ioctl"))
            #expect(try await far.property("HasProximity") == "b true", "\(far.daemon.process.stderr.suffix(3000))")
            #expect(try await far.property("ProximityNear") == "b false")
            let claim = try await far.bus.busctl(["call", "net.hadess.SensorProxy"] + Self.proxyObject + ["ClaimProximity"])
            #expect(claim.status == 0, "\(claim.stderr)")
            #expect(try await far.property("ProximityNear") == "b false", "the switch is off")
            far.stop()
        }

        // The same device with the switch on (bit 11 of EVIOCGSW's answer).
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let on = try Emulation.variant(of: "input-proximity.ioctl", in: directory, replacing: [("EVIOCGSW(0) 4 00000000", "EVIOCGSW(0) 4 00080000")])
        let near = try await Self.inputDaemon("input-proximity.umockdev", node: "/dev/input/event3", ioctl: on)
        defer { near.stop() }
        let claimNear = try await near.bus.busctl(["call", "net.hadess.SensorProxy"] + Self.proxyObject + ["ClaimProximity"])
        #expect(claimNear.status == 0, "\(claimNear.stderr)")
        #expect(try await near.property("ProximityNear") == "b true", "\(near.daemon.process.stderr.suffix(3000))")
        let client = try await near.daemon.connect()
        try await client.send(.subscribe(.init(id: 1, stream: .proximity, interval: 0.1)))
        let proximity = try #require(try await client.next(type: "proximity", timeout: 10))
        #expect(proximity["near"] as? Bool == true, "\(proximity)")
    }
}

extension HotplugTests {
    @Test("input proximity switch: the SW_FRONT_PROXIMITY event read from the node makes motiond ask the switch again; monitor-sensor sees near come",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func inputProximityEvent() async throws {
        // The switch answers off, then on (umockdev plays a recording's entries in turn); the
        // event (input-proximity.evemu) comes two seconds after the node is opened.
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let offThenOn = try Emulation.variant(of: "input-proximity.ioctl", in: directory,
                                              replacing: [("EVIOCGSW(0) 4 00000000", "EVIOCGSW(0) 4 00000000\nEVIOCGSW(0) 4 00080000")])
        let proxied = try await Self.inputDaemon("input-proximity.umockdev", node: "/dev/input/event3", ioctl: offThenOn)
        defer { proxied.stop() }
        try proxied.testbed.loadEvemuEvents("/dev/input/event3", Emulation.fixture("input-proximity.evemu"))
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has proximity sensor (near: 0)") != nil, "\(monitor.lines)")
        #expect(await monitor.wait(for: "    Proximity value changed: 1") != nil, "\(monitor.lines); \(proxied.daemon.process.stderr.suffix(2000))")
        #expect(try await proxied.property("ProximityNear") == "b true")
    }
}

extension HotplugTests {
    /// `input-accel.umockdev` with a game controller beside it: its motion sensors' event node
    /// says accelerometer too, and a sibling input device of the same controller is a joystick.
    static let joypad = """
        P: /devices/virtual/misc/uhid/0005:054C:09CC.0001/input/input21/event21
        N: input/event21
        E: DEVNAME=/dev/input/event21
        E: SUBSYSTEM=input
        E: ID_INPUT=1
        E: ID_INPUT_ACCELEROMETER=1
        E: MOTIOND_SENSOR=accelerometer
        A: dev=13:85\\n
        L: device=../../input21

        P: /devices/virtual/misc/uhid/0005:054C:09CC.0001/input/input21
        E: NAME="Wireless Controller Motion Sensors"
        E: SUBSYSTEM=input
        E: ID_INPUT=1
        E: ID_INPUT_ACCELEROMETER=1
        A: capabilities/abs=3f\\n
        A: capabilities/sw=0\\n

        P: /devices/virtual/misc/uhid/0005:054C:09CC.0001/input/input20
        E: NAME="Wireless Controller"
        E: SUBSYSTEM=input
        E: ID_INPUT=1
        E: ID_INPUT_JOYSTICK=1
        A: capabilities/sw=0\\n

        P: /devices/virtual/misc/uhid/0005:054C:09CC.0001
        E: SUBSYSTEM=hid
        E: DRIVER=sony


        """

    @Test("a game controller's motion sensors are not the screen's accelerometer: passed over with the reason, the laptop's is read; --list-sensors shows both")
    func joypadAccelerometerPassedOver() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = directory.appendingPathComponent("joypad.umockdev").path
        try (Self.joypad + (try Emulation.fixtureText("input-accel.umockdev"))).write(toFile: fixture, atomically: true, encoding: .utf8)
        let output = try await Emulation.run(
            ["umockdev-run", "-d", fixture, "-i", "/dev/input/event7=\(Emulation.fixture("input-accel.ioctl"))", "--",
             Emulation.motiond, "--source", "local:", "--no-config", "--no-socket", "--sensors", "accelerometer", "--print-samples", "--count", "2"],
            timeout: 30)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("skipped accelerometer on /sys/devices/virtual/misc/uhid/0005:054C:09CC.0001/input/input21/event21: part of a joypad"),
                "\(output.stderr)")
        #expect(output.stderr.contains("reading accelerometer on /sys/devices/platform/lis3lv02d/input/input7/event7"), "\(output.stderr)")

        // --list-sensors shows both, the laptop's used, the controller's skipped with the reason.
        let listing = try await Emulation.listing(fixturePath: fixture)
        let laptop = "/sys/devices/platform/lis3lv02d/input/input7/event7"
        #expect(listing.platformSensors?.map(\.device) == [laptop], "\(listing.text())")
        #expect(listing.selected["accelerometer"] == laptop)
        #expect(listing.skipped.contains { $0.kind == .accelerometer && $0.reason.hasPrefix("part of a joypad") }, "\(listing.text())")
    }
}

extension UdevRulesTests {
    @Test("input accelerometers, input proximity switches and hwmon light: MOTIOND_SENSOR, systemd wants motiond, group motiond may read the evdev node (ACL); the input devices themselves untouched",
          .enabled(if: canRunUdevTest, needsUdevTest))
    func inputAndHwmonSensors() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = directory.appendingPathComponent("input-hwmon.umockdev").path
        let hwmon = "P: /devices/platform/applesmc.768/hwmon/hwmon3\nE: SUBSYSTEM=hwmon\nA: name=applesmc\\n\nA: light=(10,10)\\n\n\n"
        try (try Emulation.fixtureText("input-accel.umockdev") + Emulation.fixtureText("input-proximity.umockdev") + hwmon)
            .write(toFile: fixture, atomically: true, encoding: .utf8)
        let accelerometer = "/sys/devices/platform/lis3lv02d/input/input7/event7"
        let proximity = "/sys/devices/platform/gpio-keys/input/input3/event3"
        let light = "/sys/devices/platform/applesmc.768/hwmon/hwmon3"
        let inputDevice = "/sys/devices/platform/lis3lv02d/input/input7"
        let run = try await Self.udevTest(fixturePath: fixture, [accelerometer, proximity, light, inputDevice])
        for (syspath, sensor, node) in [(accelerometer, "accelerometer", "/dev/input/event7"), (proximity, "proximity", "/dev/input/event3")] {
            let report = run[syspath]
            #expect(report.properties["MOTIOND_SENSOR"] == sensor, "\(report.lines.joined(separator: "\n"))")
            #expect(report.properties["SYSTEMD_WANTS"]?.split(separator: " ").contains("motiond.service") == true, "\(syspath)")
            #expect(report.runs.contains("/usr/bin/setfacl -m g:motiond:r \(node)"), "\(report.runs)")
            #expect(!report.applied(by: Self.rulesName).contains { $0.hasPrefix("GROUP") || $0.hasPrefix("MODE") }, "the node stays root:input")
            #expect(report.diagnostics(for: Self.rulesName).isEmpty, "\(report.diagnostics(for: Self.rulesName))")
        }
        let hwmonReport = run[light]
        #expect(hwmonReport.properties["MOTIOND_SENSOR"] == "light", "\(hwmonReport.lines.joined(separator: "\n"))")
        #expect(hwmonReport.properties["SYSTEMD_WANTS"]?.split(separator: " ").contains("motiond.service") == true)
        #expect(hwmonReport.runs.allSatisfy { !$0.contains("motiond") }, "nothing to grant: the attribute is world-readable")
        Self.expectUntouched(run[inputDevice])
    }
}

