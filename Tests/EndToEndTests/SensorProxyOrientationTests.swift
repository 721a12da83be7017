import Foundation
@testable import TestSupport
import Testing

/// The D-Bus face against iio-sensor-proxy's own accelerometer and proximity test devices
/// (the attributes of its tests/integration-test.py, tag 3.9.0, with sysfs's trailing
/// newline): a device reading 26 G at rest with fractional raw values, one reaching 26 G through
/// a micro scale, and a proximity sensor with its near level in sysfs. The expected values are
/// the ones iio-sensor-proxy's tests assert.
extension HotplugTests {
    /// A polled IIO device at `syspath` (under /sys) with `attributes` (values without the newline).
    static func peerDevice(_ syspath: String, minor: Int, type: String, name: String, attributes: [(String, String)]) -> String {
        let node = "iio:device\(minor)"
        return (["P: \(syspath)/\(node)", "N: \(node)", "E: DEVNAME=/dev/\(node)", "E: SUBSYSTEM=iio", "E: MAJOR=237", "E: MINOR=\(minor)",
                 "E: NAME=\"\(name)\"", "E: IIO_SENSOR_PROXY_TYPE=\(type)", "A: dev=237:\(minor)\\n"]
                + attributes.map { "A: \($0.0)=\($0.1)\\n" }).joined(separator: "\n") + "\n"
    }

    static let peerAccel = "/sys/devices/platform/iio-accel/iio:device0"

    /// iio-sensor-proxy's polled accelerometer: `x`, `y`, `z` raw with `scale`.
    static func peerAccelerometer(x: String, y: String, z: String, scale: String) -> String {
        peerDevice("/devices/platform/iio-accel", minor: 0, type: "iio-poll-accel", name: "IIO Accelerometer",
                   attributes: [("in_accel_x_raw", x), ("in_accel_y_raw", y), ("in_accel_z_raw", z), ("in_accel_scale", scale),
                                ("sampling_frequency", "5.2"), ("name", "IIO Test Accelerometer")])
    }

    /// Reads `property` until it is `expected` (busctl's form) or 10 s passed; the last value read.
    static func eventually(_ proxied: ProxiedDaemon, _ property: String, _ expected: String) async throws -> String {
        let deadline = Date().addingTimeInterval(10)
        var value = try await proxied.property(property)
        while value != expected, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            value = try await proxied.property(property)
        }
        return value
    }

    /// Claims the accelerometer with busctl (its call returns with the first value in place)
    /// and returns how long the claim took, seconds.
    static func claimAccelerometer(_ proxied: ProxiedDaemon) async throws -> Double {
        let started = Date()
        let claim = try await proxied.bus.busctl(["call", "net.hadess.SensorProxy"] + proxyObject + ["ClaimAccelerometer"])
        #expect(claim.status == 0, "\(claim.stderr)")
        return Date().timeIntervalSince(started)
    }

    @Test("a device reading 26 G at rest, fractional raw values: the claim returns with normal/vertical, then right-up, tilted-down, face-up (iio-sensor-proxy's test_iio_poll_accel); the implausible magnitude logged once",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func twentySixG() async throws {
        let proxied = try await ProxiedDaemon(devices: Self.peerAccelerometer(x: "0", y: "-25.6", z: "0", scale: "10"))
        defer { proxied.stop() }
        #expect(try await proxied.property("HasAccelerometer") == "b true")
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "undefined""#)
        #expect(try await proxied.property("AccelerometerTilt") == #"s "undefined""#)
        let took = try await Self.claimAccelerometer(proxied)
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "normal""#, "in place when the claim returns")
        #expect(try await proxied.property("AccelerometerTilt") == #"s "vertical""#)
        #expect(took < 1.5, "answered with the first value, not at the 2 s fallback: \(took) s")

        // monitor-sensor holds a claim while the device moves.
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has accelerometer (orientation: normal") != nil, "\(monitor.lines)")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_x_raw", "-25.6\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_y_raw", "0\n")
        #expect(try await Self.eventually(proxied, "AccelerometerOrientation", #"s "right-up""#) == #"s "right-up""#)
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_z_raw", "-25.6\n")
        #expect(try await Self.eventually(proxied, "AccelerometerTilt", #"s "tilted-down""#) == #"s "tilted-down""#)
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_z_raw", "72.4\n")
        #expect(try await Self.eventually(proxied, "AccelerometerTilt", #"s "face-up""#) == #"s "face-up""#)
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "right-up""#, "lying nearly flat keeps the last upright name")

        let log = proxied.daemon.process.stderr
        let lines = log.split(separator: "\n").filter { $0.contains("G at rest, not 1 G") }
        #expect(lines.count == 1, "one line for the implausible magnitude: \(lines); \(log.suffix(3000))")
        #expect(lines.first?.contains("the accelerometer reads 26.1 G at rest") == true, "\(lines)")
    }

    @Test("a device reaching 26 G through a micro scale: normal, then right-up (iio-sensor-proxy's test_iio_scale_decimal_separator2)",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func microScale() async throws {
        let proxied = try await ProxiedDaemon(devices: Self.peerAccelerometer(x: "0", y: "-256000000", z: "0", scale: "0.000001"))
        defer { proxied.stop() }
        _ = try await Self.claimAccelerometer(proxied)
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "normal""#, "in place when the claim returns")
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has accelerometer (orientation: normal") != nil, "\(monitor.lines)")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_x_raw", "-256000000\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_y_raw", "0\n")
        #expect(try await Self.eventually(proxied, "AccelerometerOrientation", #"s "right-up""#) == #"s "right-up""#)
    }

    @Test("a Winbook TW100 in landscape tilted back 26° (iio-sensor-proxy's test-orientation.c, through its mount matrix): left-up on the D-Bus face, landscapeRight on the socket, from a fresh start and from normal",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func tiltedLandscape() async throws {
        let device = Self.peerDevice("/devices/platform/iio-accel", minor: 0, type: "iio-poll-accel", name: "IIO Accelerometer",
                                     attributes: [("in_accel_x_raw", "15"), ("in_accel_y_raw", "-25"), ("in_accel_z_raw", "-14"),
                                                  ("in_accel_scale", "0.306457"), ("in_accel_mount_matrix", "0, -1, 0; -1, 0, 0; 0, 0, 1"),
                                                  ("name", "IIO Test Accelerometer")])
        let proxied = try await ProxiedDaemon(devices: device)
        defer { proxied.stop() }
        let watcher = try await proxied.daemon.connect()
        try await watcher.send(.subscribe(.init(id: 1, stream: .orientation)))
        _ = try await Self.claimAccelerometer(proxied)
        #expect(try await proxied.property("AccelerometerOrientation") == #"s "left-up""#, "from a fresh start")
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has accelerometer (orientation: left-up") != nil, "\(monitor.lines)")
        // Portrait (the Winbook's other vector), then back to the tilted landscape.
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_x_raw", "24\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_y_raw", "0\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_z_raw", "-21\n")
        #expect(try await Self.eventually(proxied, "AccelerometerOrientation", #"s "normal""#) == #"s "normal""#)
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_x_raw", "15\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_y_raw", "-25\n")
        proxied.testbed.setAttribute(Self.peerAccel, "in_accel_z_raw", "-14\n")
        #expect(try await Self.eventually(proxied, "AccelerometerOrientation", #"s "left-up""#) == #"s "left-up""#, "from normal")
        let received = try await watcher.collect(for: 0.5)
        let orientations = received.filter { $0["type"] as? String == "orientation" }.compactMap { $0["orientation"] as? String }
        #expect(orientations == ["landscapeRight", "portrait", "landscapeRight"], "the socket decides as the D-Bus face: \(orientations)")
    }

    @Test("proximity with the near level in sysfs, in_proximity_raw and in_proximity0_raw: 256 near, 0 far, 129 near, 127 after it stays near, 115 far (iio-sensor-proxy's margin below the level; its test_iio_poll_proximity)",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"),
          arguments: ["in_proximity_raw", "in_proximity0_raw"])
    func proximityMargin(channel: String) async throws {
        let syspath = "/sys/devices/platform/iio-proximity/iio:device0"
        let device = Self.peerDevice("/devices/platform/iio-proximity", minor: 0, type: "iio-poll-proximity", name: "IIO Proximity Sensor",
                                     attributes: [("in_proximity_nearlevel", "128"), (channel, "256"), ("name", "IIO Test Proximity Sensor")])
        let proxied = try await ProxiedDaemon(devices: device)
        defer { proxied.stop() }
        #expect(try await proxied.property("HasProximity") == "b true")
        #expect(try await proxied.property("HasAccelerometer") == "b false")
        #expect(try await proxied.property("ProximityNear") == "b false", "the default before a claim")
        let monitor = try MonitorSensor(bus: proxied.bus)
        #expect(await monitor.wait(for: "=== Has proximity sensor") != nil, "\(monitor.lines)")
        #expect(try await Self.eventually(proxied, "ProximityNear", "b true") == "b true", "256 is near")
        try await Task.sleep(for: .milliseconds(300))
        let claimed = monitor.lines.count
        var seen = claimed
        for (raw, near) in [("0", "0"), ("129", "1")] {
            proxied.testbed.setAttribute(syspath, channel, raw + "\n")
            #expect(await monitor.wait(for: "    Proximity value changed: \(near)", from: seen) != nil, "raw \(raw): \(monitor.lines.map(\.text))")
            seen = monitor.lines.count
        }
        // 127 after 129 stays near (the margin below the level), over several readings (0.2 s
        // apart while claimed), on the bus as in monitor-sensor; 115 is far.
        proxied.testbed.setAttribute(syspath, channel, "127\n")
        try await Task.sleep(for: .seconds(1))
        #expect(try await proxied.property("ProximityNear") == "b true", "127 after 129 stays near")
        proxied.testbed.setAttribute(syspath, channel, "115\n")
        #expect(await monitor.wait(for: "    Proximity value changed: 0", from: seen) != nil, "115: \(monitor.lines.map(\.text))")
        let changes = monitor.lines[claimed...].map(\.text).filter { $0.hasPrefix("    Proximity value changed") }
        #expect(changes == ["    Proximity value changed: 0", "    Proximity value changed: 1", "    Proximity value changed: 0"], "\(changes)")
    }
}
