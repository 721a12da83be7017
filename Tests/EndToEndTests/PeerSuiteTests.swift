import Foundation
@testable import TestSupport
import Testing

/// iio-sensor-proxy's own integration cases for IIO devices (its tests/integration-test.py, tag
/// 3.9.0), restated against motiond's D-Bus face: the devices' attributes and the D-Bus values
/// expected of them are the facts kept; the scans are generated here. Real parts: motiond with
/// `--sensor-proxy` on a private system bus with python-dbusmock's polkit, emulated sensors in a
/// live umockdev testbed (buffers fed by umockdev scripts), and a python-dbus client holding its
/// claims on one connection (`Tests/Tools/sensor-proxy-client.py`). `make check-peer` runs the
/// peer's file itself (scripts/check-peer.sh).
@Suite("iio-sensor-proxy's integration cases on motiond's D-Bus face", .serialized, .testbedTurn)
struct PeerSuiteTests {
    static let needs: Comment = "needs dbus-daemon, busctl, gdbus, monitor-sensor and python3-dbusmock (scripts/install-deps.sh test)"
    static var hasTools: Bool {
        HotplugTests.hasDBusTools && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    /// The accelerometer's sysfs path in these testbeds.
    static let accel = "/sys/devices/platform/test-accel/iio:device0"
    static let light = "/sys/devices/platform/test-als/iio:device1"

    /// The peer's buffered test accelerometer: x, y, z as le:s16 in 32-bit words (index 0–2), a
    /// le:s64 timestamp (index 3), no scale (`extra` adds some: a scale of 0.00980665 makes the
    /// generated samples, milli-G, read as what they are).
    static func bufferedAccel(trigger: Bool = true, raw: [Int]? = nil, extra: [(name: String, value: String)] = []) -> String {
        var attributes: [(name: String, value: String)] = [("name", "IIO Test Accelerometer"), ("buffer/enable", "0")]
        if trigger { attributes.append(("trigger/current_trigger", "")) }
        attributes += extra
        if let raw { attributes += zip(["x", "y", "z"], raw).map { ("in_accel_\($0.0)_raw", "\($0.1)") } }
        for (index, axis) in ["x", "y", "z"].enumerated() {
            attributes += [("scan_elements/in_accel_\(axis)_en", "0"), ("scan_elements/in_accel_\(axis)_index", "\(index)"),
                           ("scan_elements/in_accel_\(axis)_type", "le:s16/32>>0")]
        }
        attributes += [("scan_elements/in_timestamp_en", "1"), ("scan_elements/in_timestamp_index", "3"),
                       ("scan_elements/in_timestamp_type", "le:s64/64>>0")]
        let device = Emulation.iioDevice(String(accel.dropFirst(4)), number: 0, attributes: attributes)
        // The peer's trigger (its name is a HID hub's, not this device's: none is attached).
        return device + (trigger ? "P: /devices/trigger0\nE: SUBSYSTEM=iio\nA: name=accel_3d-dev0\\n\n\n" : "")
    }

    /// A polled accelerometer at sampling frequency 5.2 Hz, `available` its list if any.
    static func polledAccel(raw: [Int], scale: String, available: String? = nil, extra: [(name: String, value: String)] = []) -> String {
        var attributes: [(name: String, value: String)] = zip(["x", "y", "z"], raw).map { ("in_accel_\($0.0)_raw", "\($0.1)") }
        attributes += [("in_accel_scale", scale), ("sampling_frequency", "5.2"), ("name", "IIO Test Accelerometer")]
        if let available { attributes.append(("sampling_frequency_available", available)) }
        return Emulation.iioDevice(String(accel.dropFirst(4)), number: 0, attributes: attributes + extra)
    }

    /// The peer's polled light sensor at `lux`.
    static func lightSensor(lux: Int) -> String {
        Emulation.iioDevice(String(light.dropFirst(4)), number: 1, attributes: [
            ("integration_time", "1"), ("in_illuminance_input", "\(lux)"), ("in_illuminance_scale", "1.0"), ("name", "IIO Test Light")])
    }

    /// One scan of the buffered accelerometer: x, y, z in the low half of 32-bit words, 4 bytes
    /// of padding, the timestamp (ns).
    static func scan(_ axes: [Int16], nanoseconds: Int64) -> [UInt8] {
        axes.flatMap { ScanScript.littleEndian(UInt32(UInt16(bitPattern: $0))) } + [0, 0, 0, 0] + ScanScript.littleEndian(nanoseconds)
    }

    /// Scans of the given poses (milli-G with the 0.00980665 scale), `count` each, one every 50 ms.
    static func feed(_ poses: [(axes: [Int16], count: Int)], firstDelay: Int = 10) -> ScanScript {
        var script = ScanScript()
        var n: Int64 = 0
        for pose in poses {
            for _ in 0..<pose.count {
                script.read(scan(pose.axes, nanoseconds: 1_000_000_000 + n * 50_000_000), delay: n == 0 ? firstDelay : 50)
                n += 1
            }
        }
        return script
    }

    static let upright: [Int16] = [0, -1000, 0]
    static let leftUp: [Int16] = [1000, 0, 0]
    static let milliG: (name: String, value: String) = ("in_accel_scale", "0.00980665")

    /// motiond serving the D-Bus face on a testbed of `devices` (and buffer `scripts` by device
    /// node, started by ``startFeeds()``), polkit allowing the claims, `environment` added to
    /// motiond's.
    struct Served {
        let testbed: Testbed
        let bus: SystemBus
        let polkit: RunningProcess?
        let daemon: ServedDaemon
        let directory: URL
        /// The scripts' files by device node, written, not yet loaded.
        let feeds: [(node: String, path: String)]

        init(_ devices: String, scripts: [String: ScanScript] = [:], environment: [String: String] = [:]) async throws {
            directory = try Emulation.temporaryDirectory()
            testbed = Testbed()
            try testbed.add(devices)
            var feeds: [(node: String, path: String)] = []
            for (node, script) in scripts {
                let path = directory.appendingPathComponent("feed-\(UUID().uuidString).script")
                try script.write(to: path)
                feeds.append((node, path.path))
            }
            self.feeds = feeds
            bus = try await SystemBus()
            polkit = try await bus.startPolkit(allowing: [HotplugTests.claimAction])
            guard polkit != nil else { throw TestFailure("python3-dbusmock is not installed") }
            daemon = try ServedDaemon(["--source", "local:", "--sensor-proxy", "--no-config"],
                                      environment: bus.environment(testbed.environment).merging(environment) { $1 })
            guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
                throw TestFailure("motiond did not own net.hadess.SensorProxy: \(daemon.process.stderr.suffix(2000))")
            }
        }

        /// Loads the buffer scripts: call it right before the claim that opens the buffers.
        /// umockdev times a script's reads from its loading, not from the device's opening
        /// (scans not read pile up in the node), so a script loaded with the testbed ran on while
        /// the bus, polkit and motiond started: on a loaded machine its first pose (10 s) had
        /// passed before the claim, and came as a backlog read at once (arrival stamps a
        /// microsecond apart: too short for any orientation to settle).
        func startFeeds() throws {
            for feed in feeds { try testbed.loadScript(feed.node, feed.path) }
        }

        func stop() -> Int32 {
            defer {
                polkit?.terminate()
                try? FileManager.default.removeItem(at: directory)
            }
            return daemon.stop()
        }

        /// A property of the main object, as busctl prints it (`b true`, `s "normal"`).
        func property(_ name: String) async throws -> String {
            try await bus.busctl(["get-property", "net.hadess.SensorProxy"] + HotplugTests.proxyObject + [name])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A sysfs attribute as the kernel would show it (libiio writes a terminating NUL; the
        /// testbed's file keeps it), without its newline.
        func attribute(_ syspath: String, _ name: String) -> String {
            let text = (try? String(contentsOfFile: testbed.root + syspath + "/" + name, encoding: .utf8)) ?? "<missing>"
            return text.replacingOccurrences(of: "\0", with: "").trimmingCharacters(in: .newlines)
        }

        /// Starts the client with `steps` (sensor-proxy-client.py's).
        func client(_ steps: [String]) throws -> RunningProcess {
            try RunningProcess(["/usr/bin/python3", Emulation.packageRoot.appendingPathComponent("Tests/Tools/sensor-proxy-client.py").path] + steps,
                               environment: bus.environment())
        }

        /// Runs the client to its end (at most `timeout` s); its lines, and the same without
        /// the signals it received (`changed …`).
        func run(_ steps: [String], timeout: Double = 60) async throws -> (all: [String], replies: [String]) {
            let process = try client(steps)
            _ = await process.wait(timeout: timeout) { _ in !process.isRunning }
            #expect(process.status == 0, "client: \(process.stderr)")
            let lines = process.stdout.split(separator: "\n").map(String.init)
            return (lines, lines.filter { !$0.hasPrefix("changed ") })
        }

        /// Waits up to `timeout` s for motiond's log to contain `text`.
        func logs(_ text: String, timeout: Double = 10) async -> Bool {
            await daemon.process.wait(timeout: timeout) { $0.stderr.contains(text) }
        }
    }

    @Test("buffered accelerometer: nothing touched before a claim; claimed, its scan elements and buffer are enabled and its scans give normal, then left-up, then normal again; all put back when released",
          .enabled(if: hasTools, needs))
    func bufferedAccelerometer() async throws {
        // 10 s upright from the claim (``Served/startFeeds()``): the claim's first orientation
        // must come from it even on a loaded machine (in a full make check it took over 3 s once).
        let script = Self.feed([(Self.upright, 200), (Self.leftUp, 120), (Self.upright, 600)])
        let served = try await Served(Self.bufferedAccel(extra: [Self.milliG]), scripts: ["/dev/iio:device0": script])
        defer { _ = served.stop() }
        #expect(try await served.property("HasAccelerometer") == "b true")
        #expect(try await served.property("HasAmbientLight") == "b false")
        #expect(try await served.property("AccelerometerOrientation") == #"s "undefined""#)
        for name in ["buffer/enable", "scan_elements/in_accel_x_en", "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en"] {
            #expect(served.attribute(Self.accel, name) == "0", "\(name): motiond configures a device only while it reads it")
        }
        try served.startFeeds()
        let client = try served.client(["claim", "Accelerometer", "get", "AccelerometerOrientation",
                                        "wait", "AccelerometerOrientation", "left-up", "20", "wait", "AccelerometerOrientation", "normal", "30"])
        #expect(await client.wait(timeout: 15) { $0.stdout.contains("get AccelerometerOrientation") }, "\(client.stdout) \(client.stderr)")
        for name in ["buffer/enable", "scan_elements/in_accel_x_en", "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en", "scan_elements/in_timestamp_en"] {
            #expect(served.attribute(Self.accel, name) == "1", "\(name) while claimed")
        }
        _ = await client.wait(timeout: 60) { _ in !client.isRunning }
        let lines = client.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("get AccelerometerOrientation normal"), "the claim returns with the first orientation: \(lines)")
        #expect(lines.contains("waited AccelerometerOrientation left-up"), "\(lines)")
        #expect(lines.last == "waited AccelerometerOrientation normal", "\(lines)")
        #expect(served.daemon.process.stderr.contains("reading accelerometer from iio:device0 (IIO Test Accelerometer), buffered"))
        // The client is gone: its claim with it, and the device as it was.
        let deadline = Date().addingTimeInterval(10)
        while served.attribute(Self.accel, "buffer/enable") != "0", Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(served.attribute(Self.accel, "buffer/enable") == "0")
        #expect(served.attribute(Self.accel, "scan_elements/in_accel_x_en") == "0")
    }

    @Test("a buffered accelerometer that needs no trigger (no trigger/current_trigger) is read through its buffer",
          .enabled(if: hasTools, needs))
    func bufferWithoutTrigger() async throws {
        let served = try await Served(Self.bufferedAccel(trigger: false, extra: [Self.milliG]),
                                      scripts: ["/dev/iio:device0": Self.feed([(Self.upright, 600)])])
        defer { _ = served.stop() }
        #expect(try await served.property("HasAccelerometer") == "b true")
        #expect(await served.logs("read buffered (scan elements, no trigger needed)"), "\(served.daemon.process.stderr)")
        try served.startFeeds()
        let lines = try await served.run(["claim", "Accelerometer", "get", "AccelerometerOrientation"]).replies
        #expect(lines == ["claimed Accelerometer", "get AccelerometerOrientation normal"], "\(lines)")
        #expect(served.daemon.process.stderr.contains("reading accelerometer from iio:device0 (IIO Test Accelerometer), buffered"))
    }

    @Test("a buffer that gives no data: HasAccelerometer all the same, and a claim is served by polling its _raw attributes",
          .enabled(if: hasTools, needs))
    func brokenBufferPolls() async throws {
        // Its first scan would come 3 s after the claim, long after the probe gave up.
        let served = try await Served(Self.bufferedAccel(raw: [0, -1000, 0], extra: [Self.milliG]),
                                      scripts: ["/dev/iio:device0": Self.feed([(Self.leftUp, 1)], firstDelay: 3000)])
        defer { _ = served.stop() }
        #expect(try await served.property("HasAccelerometer") == "b true")
        try served.startFeeds()
        let lines = try await served.run(["claim", "Accelerometer", "get", "AccelerometerOrientation"]).replies
        #expect(lines == ["claimed Accelerometer", "get AccelerometerOrientation normal"], "\(lines)")
        #expect(served.daemon.process.stderr.contains("the buffer produced no data within 500 ms; polling accelerometer through sysfs instead"),
                "\(served.daemon.process.stderr)")
        #expect(try await served.property("HasAccelerometer") == "b true")
        // No trigger of its own, and no configfs in the testbed for a software trigger: said once.
        let said = served.daemon.process.stderr.split(separator: "\n").filter { $0.contains("get no software trigger") }
        #expect(said.count == 1 && said.first?.contains("no /sys/kernel/config: the kernel has no configfs (CONFIG_CONFIGFS_FS)") == true, "\(said)")
    }

    @Test("a buffer that gives no data at first, on a device with nothing to poll: its buffer is read on, and its first scans answer the claim",
          .enabled(if: hasTools, needs))
    func lateBufferWithoutRaw() async throws {
        // The first scan 4 s after the claim: past the 500 ms probe even when the daemon,
        // slowed by a sanitizer on a loaded machine, starts the probe a second or more after
        // the claim (1.5 s was seen answered within the probe there).
        let served = try await Served(Self.bufferedAccel(extra: [Self.milliG]),
                                      scripts: ["/dev/iio:device0": Self.feed([(Self.upright, 600)], firstDelay: 4000)])
        defer { _ = served.stop() }
        try served.startFeeds()
        let lines = try await served.run(["claim", "Accelerometer", "wait", "AccelerometerOrientation", "normal", "15"]).replies
        #expect(lines.first == "claimed Accelerometer", "not 'Sensor removed while waiting for it to start up': \(lines)")
        #expect(lines.last == "waited AccelerometerOrientation normal", "\(lines)")
        #expect(served.daemon.process.stderr.contains("and its channels have no _raw attributes to poll instead: reading the buffer, waiting for data"),
                "\(served.daemon.process.stderr)")
        #expect(try await served.property("HasAccelerometer") == "b true")
    }

    @Test("decimal-comma locale, buffered: the scale 0.000010 is read as such (not 0), the claim is served through the buffer",
          .enabled(if: hasTools, needs), .enabled(if: DecimalCommaLocale.isAvailable, "needs the de_DE locale source (Debian's locales package)"))
    func decimalCommaBuffered() async throws {
        let served = try await Served(
            Self.bufferedAccel(extra: [("in_accel_scale", "0.000010"), ("in_accel_offset", "0.0"), ("in_accel_mount_matrix", "1, 0, 0; 0, 1, 0; 0, 0, 1")]),
            scripts: ["/dev/iio:device0": Self.feed([(Self.upright, 600)])], environment: try await DecimalCommaLocale.environment())
        defer { _ = served.stop() }
        #expect(try await served.property("HasAccelerometer") == "b true")
        #expect(await served.logs("found accelerometer on iio:device0 (IIO Test Accelerometer), display: scale 0.00001 0.00001 0.00001, offset 0 0 0;"),
                "\(served.daemon.process.stderr)")
        try served.startFeeds()
        let lines = try await served.run(["claim", "Accelerometer"]).replies
        #expect(lines == ["claimed Accelerometer"], "\(lines)")
        #expect(served.daemon.process.stderr.contains("reading accelerometer from iio:device0 (IIO Test Accelerometer), buffered"))
    }

    @Test("decimal-comma locale, buffered, with a per-axis offset: the accelerometer is offered",
          .enabled(if: hasTools, needs), .enabled(if: DecimalCommaLocale.isAvailable, "needs the de_DE locale source (Debian's locales package)"))
    func decimalCommaOffset() async throws {
        let served = try await Served(
            Self.bufferedAccel(extra: [("in_accel_scale", "0.000010"), ("in_accel_x_offset", "0.0"), ("in_accel_mount_matrix", "1, 0, 0; 0, 1, 0; 0, 0, 1")]),
            environment: try await DecimalCommaLocale.environment())
        defer { _ = served.stop() }
        #expect(try await served.property("HasAccelerometer") == "b true")
        #expect(await served.logs("scale 0.00001 0.00001 0.00001, offset 0 0 0;"), "\(served.daemon.process.stderr)")
    }

    @Test("decimal-comma locale, polled: the scale 0.000001 is read as such (not 1), normal, then right-up",
          .enabled(if: hasTools, needs), .enabled(if: DecimalCommaLocale.isAvailable, "needs the de_DE locale source (Debian's locales package)"))
    func decimalCommaPolled() async throws {
        // raw × 0.000001 = 9.80665 m/s²: 1 G.
        let served = try await Served(Self.polledAccel(raw: [0, -9_806_650, 0], scale: "0.000001"), environment: try await DecimalCommaLocale.environment())
        defer { _ = served.stop() }
        #expect(await served.logs("scale 0.000001 0.000001 0.000001, offset 0 0 0;"), "\(served.daemon.process.stderr)")
        let path = served.testbed.root + Self.accel
        let lines = try await served.run(["claim", "Accelerometer", "get", "AccelerometerOrientation",
                                          "write", path + "/in_accel_x_raw", "-9806650", "write", path + "/in_accel_y_raw", "0",
                                          "wait", "AccelerometerOrientation", "right-up", "15"]).replies
        #expect(lines == ["claimed Accelerometer", "get AccelerometerOrientation normal", "waited AccelerometerOrientation right-up"], "\(lines)")
    }

    /// The sampling frequency of a polled accelerometer listing `available`, before a claim,
    /// while claimed, and after motiond stopped.
    func samplingFrequency(available: String) async throws -> (before: String, claimed: String, after: String) {
        let served = try await Served(Self.polledAccel(raw: [0, -9_806_650, 0], scale: "0.000001", available: available))
        let before = served.attribute(Self.accel, "sampling_frequency")
        let client = try served.client(["claim", "Accelerometer", "sleep", "30"])
        defer { client.terminate() }
        #expect(await client.wait(timeout: 15) { $0.stdout.contains("claimed Accelerometer") }, "\(client.stderr)")
        let claimed = served.attribute(Self.accel, "sampling_frequency")
        #expect(served.stop() == 0)
        return (before, claimed, served.attribute(Self.accel, "sampling_frequency"))
    }

    @Test("sampling_frequency_available as integers low to high (LSM303DA): while read, the lowest listed at or above the 50 Hz motiond reads at; 5.2 before and after",
          .enabled(if: hasTools, needs))
    func samplingFrequencyIntegers() async throws {
        let frequency = try await samplingFrequency(available: "3 6 12 25 50 100 200 400 800 1600")
        #expect(frequency.before == "5.2", "nothing written before a client wants the sensor")
        #expect(frequency.claimed == "50")
        #expect(frequency.after == "5.2", "put back at exit")
    }

    @Test("sampling_frequency_available as decimals high to low (mma8452): a listed value, written in its shortest form; 5.2 before and after",
          .enabled(if: hasTools, needs))
    func samplingFrequencyDecimals() async throws {
        let frequency = try await samplingFrequency(available: "800.000000 400.000000 200.000000 100.000000 50.000000 12.500000 6.250000 1.560000")
        #expect(frequency.before == "5.2")
        #expect(frequency.claimed == "50", "50.000000 from the list, written as 50")
        #expect(frequency.after == "5.2")
    }

    @Test("an accelerometer labelled accel-base is not offered (HasAccelerometer false) while the light beside it is",
          .enabled(if: hasTools, needs))
    func baseLocation() async throws {
        let served = try await Served(Self.polledAccel(raw: [0, -9_806_650, 0], scale: "0.000001", extra: [("label", "accel-base")]) + Self.lightSensor(lux: 0))
        defer { _ = served.stop() }
        #expect(try await served.property("HasAmbientLight") == "b true")
        #expect(try await served.property("HasAccelerometer") == "b false")
    }

    @Test("unrequested readings: a client that released the light gets no LightLevel changes while another client reads it; a claim gets the current level",
          .enabled(if: hasTools, needs))
    func unrequestedReadings() async throws {
        let served = try await Served(Self.lightSensor(lux: 0))
        defer { _ = served.stop() }
        #expect(try await served.property("HasAmbientLight") == "b true")
        let input = served.testbed.root + Self.light + "/in_illuminance_input"
        let (lines, replies) = try await served.run([
            "claim", "Light", "get", "LightLevel", "release", "Light", "get", "LightLevel",
            "write", input, "1", "claim", "Light", "get", "LightLevel", "release", "Light", "get", "LightLevel",
            "write", input, "2", "mark", "released", "other-claim", "Light", "wait", "LightLevel", "2.0", "15", "sleep", "1.5",
        ])
        #expect(replies == [
            "claimed Light", "get LightLevel 0.0", "released Light", "get LightLevel 0.0",
            "claimed Light", "get LightLevel 1.0", "released Light", "get LightLevel 1.0",
            "mark released", "claimed Light", "waited LightLevel 2.0",
        ], "\(lines)")
        let released = try #require(lines.firstIndex(of: "mark released"))
        #expect(!lines[released...].contains { $0.hasPrefix("changed LightLevel") }, "no values for a client without a claim: \(lines)")
    }
}
