import Foundation
@testable import TestSupport
import Testing
import MotionClient
import MotionCore
import MotionIIO
import MotionProtocol

/// A convertible through the daemon: a fold replayed from a trace with a base accelerometer,
/// seen on the `hinge` and `posture` streams by a socket client and through MotionClient; the
/// tablet-mode switch; the discovery of base sensors. Folds on emulated cros-ec sensors, which
/// need the process's one live testbed, are in the hot-plug suite (the extension below).
@Suite("Convertible: hinge and posture through motiond", .serialized)
struct ConvertibleTests {
    /// The way out of the simulated fold (closed → 100° → flat → lifted → stand → tablet),
    /// 0.6 s a stage, 1.2 s holds, as a trace at 50 Hz with `base_acc_*` columns.
    static func foldTrace(in directory: URL, lead: Double = 0) throws -> (path: String, stops: [Double]) {
        let steps = Array(SimulatedConvertible.Scenario.fold(turn: 0.6, hold: 1.2).prefix(6))
        var machine = SimulatedConvertible(steps: steps)
        let g = PhysicalConstants.standardGravity
        var text = "t,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z\n"
        // The machine lies closed for the first `lead` seconds: every client has subscribed
        // before the lid opens, however slowly this machine starts them.
        for i in 0..<Int((machine.duration + lead) * 50) + 50 {
            let t = Double(i) / 50
            let r = machine.readings(at: max(0, t - lead))
            // SI and the inertial-navigation sign: −G values × g.
            let (d, b) = (r.display * -g, r.base * -g)
            text += "\(t),\(d.x),\(d.y),\(d.z),\(b.x),\(b.y),\(b.z)\n"
        }
        let path = directory.appendingPathComponent("fold.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, steps.map(\.hinge))
    }

    @Test("a fold replayed: the hinge angle reaches each stop, the postures come in order, to a socket client and MotionClient",
          .timeLimit(.minutes(1)))
    func foldReplayed() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (trace, stops) = try Self.foldTrace(in: directory, lead: 6)
        let daemon = try ServedDaemon(["--source", "replay:\(trace)", "--no-config"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()

        let manager = MotionManager(socketPath: daemon.socket)
        #expect(manager.isHingeAvailable, "both accelerometers are in the trace")
        let queue = MotionClientTests.queue("convertible")
        let angles = MotionClientTests.Recorder<HingeAngle>(), postures = MotionClientTests.Recorder<Posture>()
        let observations = [
            manager.observeHinge(interval: 0.02, on: queue) { angles.add($0, nil, expected: queue) },
            manager.observePosture(on: queue) { postures.add($0, nil, expected: queue) },
        ]
        defer { observations.forEach { $0.cancel() } }
        try await client.send(#"{"op":"subscribe","id":1,"stream":"hinge","interval":0.02}"#)
        try await client.send(#"{"op":"subscribe","id":2,"stream":"posture"}"#)
        // A client whose flat reaches 270° (and is kept 10° beyond): the stand is flat to it.
        let wide = try await daemon.connect()
        try await wide.send(#"{"op":"subscribe","id":1,"stream":"posture","detectors":{"posture":{"flatTo":270,"hysteresis":10}}}"#)
        let collected = try await SocketClient.collect(from: [client, wide], for: 19)
        let messages = collected[0]

        let hinge = messages.filter { $0["type"] as? String == "hinge" }
        let measured = hinge.compactMap { m -> (Double, String)? in
            guard let angle = m["angle"] as? Double, let accuracy = m["accuracy"] as? String else { return nil }
            return (angle, accuracy)
        }
        #expect(measured.count == hinge.count && hinge.count > 200, "\(hinge.count) hinge values")
        // Every stop after the first is reached, measured at rest (the start may pass before
        // the client subscribed).
        for stop in stops.dropFirst() {
            #expect(measured.contains { abs($0.0 - stop) < 3 && $0.1 == "high" }, "no high-accuracy value within 3° of \(stop)°")
        }
        let seen = messages.filter { $0["type"] as? String == "posture" }.compactMap { $0["posture"] as? String }
        #expect(Array(seen.drop { $0 == "closed" }) == ["laptop", "flat", "stand", "tablet"], "\(seen)")
        // The wide client learns the posture of the moment it subscribed (on a loaded machine the
        // fold may have passed laptop by then), then each change: never the stand.
        let wideSeen = collected[1].filter { $0["type"] as? String == "posture" }.compactMap { $0["posture"] as? String }
        let wideOrder = ["closed", "laptop", "flat", "tablet"]
        #expect(wideSeen.count >= 2 && wideOrder.reversed().starts(with: Array(wideSeen.reversed())), "\(wideSeen)")
        #expect(await MotionClientTests.poll(timeout: 5) { postures.values.last == .tablet }, "\(postures.values)")
        #expect(angles.values.count > 100 && abs((angles.values.last?.degrees ?? 0) - 360) < 3, "\(angles.values.suffix(3))")
    }

    /// The cros-ec pair of the convertible fixture: the base (`location=base`) and the lid.
    static let crosBase = "/sys/devices/platform/GOOG0004:00/cros-ec-dev.1.auto/cros-ec-sensorhub.2.auto/cros-ec-accel.3.auto/iio:device2"
    static let crosLid = "/sys/devices/platform/GOOG0004:00/cros-ec-dev.1.auto/cros-ec-sensorhub.2.auto/cros-ec-accel.4.auto/iio:device3"

    /// Sets a sensor's raw values for a reading in G (the fixture's scale: 1000 a G).
    static func set(_ testbed: Testbed, _ syspath: String, _ reading: Vector3) {
        for (axis, value) in zip(["x", "y", "z"], [reading.x, reading.y, reading.z]) {
            testbed.setAttribute(syspath, "in_accel_\(axis)_raw", "\(Int((value * 1000).rounded()))\n")
        }
    }

    /// What a chip reads for `value` in the device frame when motiond reads it through `matrix`
    /// (as the kernel writes it): a HID hub's through the matrix made proper; any other chip,
    /// which reports the specific force, its accelerometer through the matrix made improper and
    /// its gyroscope through that negated (SensorDiscovery). The matrices here are orthogonal.
    static func chip(_ value: Vector3, matrix: String = "1, 0, 0; 0, 1, 0; 0, 0, 1", accelerometer: Bool = true, hid: Bool = false) throws -> Vector3 {
        let given = try MountMatrix(parsing: matrix)
        let applied = hid ? given.proper : accelerometer ? given.improper : given.improper.negated
        return applied.matrix.transposed * value
    }

    /// A cros-ec gyroscope block (as `cros-ec-gyro` exposes one) at `syspath`, `location`, its
    /// chip mounted with `matrix` (sysfs `mount_matrix`); scale: 1000 a rad/s.
    static func crosGyroscope(_ syspath: String, number: Int, location: String, matrix: String) -> String {
        Emulation.iioDevice(syspath, number: number, attributes: [
            ("name", "cros-ec-gyro"), ("location", location), ("mount_matrix", matrix),
            ("in_anglvel_x_raw", "0"), ("in_anglvel_y_raw", "0"), ("in_anglvel_z_raw", "0"), ("in_anglvel_scale", "0.001"),
        ])
    }

    @Test("discovery of a base gyroscope: never the gyroscope beside a display accelerometer; the gyroscope of a machine whose sensors all sit in the base; the hinge line names the pair")
    func baseGyroscopeDiscovery() async throws {
        let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
        let base = try #require(blocks.first { $0.contains("location=base") && $0.contains("cros-ec") })
        let lid = try #require(blocks.first { $0.contains("location=lid") })
        let hub = "/devices/platform/GOOG0004:00/cros-ec-dev.1.auto/cros-ec-sensorhub.2.auto"
        let identity = "1, 0, 0; 0, 1, 0; 0, 0, 1"
        let baseGyroscope = Self.crosGyroscope("\(hub)/cros-ec-gyro.5.auto/iio:device4", number: 4, location: "base", matrix: identity)
        let lidGyroscope = Self.crosGyroscope("\(hub)/cros-ec-gyro.6.auto/iio:device5", number: 5, location: "lid", matrix: identity)
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func listing(_ text: String, _ name: String) async throws -> SensorListing {
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return try await Emulation.listing(fixturePath: path)
        }
        // The common Chromebook: an accelerometer in the lid, accelerometer and gyroscope in the base.
        let pair = base + "\n\n" + lid + "\n\n"
        let chromebook = try await listing(pair + baseGyroscope, "chromebook.umockdev")
        #expect(chromebook.selected["accelerometer"] == "iio:device3" && chromebook.selected["baseAccelerometer"] == "iio:device2")
        #expect(chromebook.selected["baseGyroscope"] == "iio:device4" && chromebook.selected["gyroscope"] == nil, "\(chromebook.selected)")
        #expect(chromebook.hinge == "measurable: display accelerometer iio:device3, base accelerometer iio:device2")
        // A gyroscope in each half: the hinge can be carried by them.
        let both = try await listing(pair + baseGyroscope + "\n" + lidGyroscope, "both.umockdev")
        #expect(both.selected["gyroscope"] == "iio:device5" && both.selected["baseGyroscope"] == "iio:device4")
        #expect(both.hinge.hasSuffix("; carried through motion by the gyroscopes iio:device5 and iio:device4"), "\(both.hinge)")
        // Everything in the base: those are the machine's accelerometer and gyroscope.
        let baseOnly = try await listing(base + "\n\n" + baseGyroscope, "base-only.umockdev")
        let expected: [String: String] = ["accelerometer": "iio:device2", "gyroscope": "iio:device4"]
        #expect(baseOnly.selected == expected, "\(baseOnly.selected)")
    }

    @Test("the tablet-mode switch: tried at the first posture of a convertible; without /dev/uinput said once, the streams go on; never tried without a base accelerometer",
          .timeLimit(.minutes(1)))
    func tabletModeSwitch() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (trace, _) = try Self.foldTrace(in: directory)
        let daemon = try ServedDaemon(["--source", "replay:\(trace)"], configuration: "[convertible]\ntablet-mode-switch = \"on\"\n")
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        try await client.send(#"{"op":"subscribe","id":1,"stream":"posture"}"#)
        let uinput = FileManager.default.fileExists(atPath: "/dev/uinput")
        if !uinput {
            // Without a switch, nothing subscribes to the posture for it (the accelerometers
            // would be read for nothing): while the fold still plays, the client's is the only
            // posture subscription.
            #expect(await daemon.process.wait(timeout: 5) { $0.stderr.contains("no tablet-mode switch for the desktop") })
            let asker = try await daemon.connect()
            try await asker.send(#"{"op":"status","id":1}"#)
            let status = try await asker.reply(1)?["status"] as? [String: Any]
            #expect((status?["subscriptions"] as? [String: Any])?["posture"] as? Int == 1, "\(String(describing: status?["subscriptions"]))")
        }
        let messages = try await client.collect(for: 13)
        #expect(messages.compactMap { $0["posture"] as? String }.last == "tablet")
        // What it says of the device (the debug lines of its subscriptions aside).
        let said = daemon.process.stderr.split(separator: "\n").filter { $0.contains("tablet-mode switch") && !$0.contains("subscribed") }
        if uinput {
            // A machine that has uinput (the real-system tier reads the device back).
            #expect(said.contains { $0.contains("created the tablet-mode switch") || $0.contains("no tablet-mode switch for the desktop") }, "\(said)")
        } else {
            #expect(said.count == 1 && said.first?.contains("no tablet-mode switch for the desktop: cannot open /dev/uinput: No such file or directory") == true,
                    "\(said)")
        }

        // A trace without a base accelerometer: no posture, no switch, the accelerometer unread.
        let slate = trace + ".slate.csv"
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        // The columns t and acc_* only.
        try text.split(separator: "\n").map { $0.split(separator: ",").prefix(4).joined(separator: ",") }.joined(separator: "\n")
            .write(toFile: slate, atomically: true, encoding: .utf8)
        let plain = try ServedDaemon(["--source", "replay:\(slate)"], configuration: "[convertible]\ntablet-mode-switch = \"on\"\n")
        defer { _ = plain.stop() }
        let status = try await plain.connect()
        try await Task.sleep(for: .seconds(1))
        try await status.send(#"{"op":"status","id":1}"#)
        let reply = try #require(try await status.reply(1))
        let sensors = (reply["status"] as? [String: Any])?["sensors"] as? [String: Any]
        let accelerometer = sensors?["accelerometer"] as? [String: Any]
        #expect(accelerometer?["available"] as? Bool == true && accelerometer?["mode"] == nil, "\(String(describing: accelerometer))")
        let tried = plain.process.stderr.split(separator: "\n").filter {
            $0.contains("tablet-mode switch") && !$0.contains("subscribed to availability")
        }
        #expect(tried.isEmpty, "\(tried)")
    }

    @Test("sim: is a slate: after a posture subscriber leaves, hello and status still say the base accelerometer is unavailable and unread, and the next hinge subscriber is answered unavailable",
          .timeLimit(.minutes(1)))
    func simulatedSlateHasNoBase() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        do {
            let leaving = try await daemon.connect()
            try await leaving.send(#"{"op":"subscribe","id":1,"stream":"posture"}"#)
            let reply = try #require(try await leaving.reply(1))
            #expect(reply["ok"] as? Bool == true && reply["available"] as? Bool == false, "\(reply)")
        }
        // The first client is gone (its socket closed): wait until the daemon has seen it leave.
        let asker = try await daemon.connect()
        var status: [String: Any] = [:]
        for id in 1...100 {
            try await asker.send(#"{"op":"status","id":\#(id)}"#)
            status = try #require(try await asker.reply(id)?["status"] as? [String: Any])
            if status["clients"] as? Int == 1 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(status["clients"] as? Int == 1, "\(status)")
        let base = (status["sensors"] as? [String: Any])?["baseAccelerometer"] as? [String: Any]
        #expect(base?["available"] as? Bool == false && base?["period"] == nil && base?["mode"] == nil, "\(String(describing: base))")

        let next = try await SocketClient(path: daemon.socket)
        let hello = try #require(try await next.hello())
        let helloBase = (hello["sensors"] as? [String: Any])?["baseAccelerometer"] as? [String: Any]
        #expect(helloBase?["available"] as? Bool == false, "\(String(describing: helloBase))")
        try await next.send(#"{"op":"subscribe","id":1,"stream":"hinge","interval":0.02}"#)
        let hinge = try #require(try await next.reply(1))
        #expect(hinge["ok"] as? Bool == true && hinge["available"] as? Bool == false, "\(hinge)")
    }
}

/// The convertible on a live umockdev testbed (one per process: these belong to the serialized
/// hot-plug suite), folded through sysfs.
extension HotplugTests {
    /// The two sysfs layouts of a convertible's accelerometers: a Chromebook's cros-ec pair
    /// (the base by its `location` attribute) and a HID sensor hub's two `accel_3d` (the base
    /// by udev's `ACCEL_LOCATION`, as the hwdb gives it; read by polling here, buffered on the
    /// real kernel in `make check-system`). Either way the base has the hwdb
    /// `ACCEL_MOUNT_MATRIX` diag(−1, −1, 1): the hub's chip sits turned half about z; the cros-ec
    /// chips report the specific force, which that matrix's x and y undo; both read 1000 counts a G.
    enum ConvertibleLayout: String, CaseIterable, Sendable {
        case crosEC, hid

        var lid: String {
            switch self {
            case .crosEC: return ConvertibleTests.crosLid
            case .hid: return "/sys\(Self.hub)/HID-SENSOR-200073.0.auto/iio:device0"
            }
        }

        var base: String {
            switch self {
            case .crosEC: return ConvertibleTests.crosBase
            case .hid: return "/sys\(Self.hub)/HID-SENSOR-200073.3.auto/iio:device1"
            }
        }

        static let hub = "/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001"
        static let turnedMatrix = "-1, 0, 0; 0, -1, 0; 0, 0, 1"
        static let turned = "ACCEL_MOUNT_MATRIX=\(turnedMatrix)"

        /// Writes the lid's and the base's readings (device frames, G) as the chips read them.
        func set(_ testbed: Testbed, display: Vector3, base: Vector3) throws {
            ConvertibleTests.set(testbed, lid, try ConvertibleTests.chip(display, hid: self == .hid))
            ConvertibleTests.set(testbed, self.base, try ConvertibleTests.chip(base, matrix: Self.turnedMatrix, hid: self == .hid))
        }

        func devices() throws -> String {
            switch self {
            case .crosEC:
                let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
                let base = try #require(blocks.first { $0.contains("location=base") && $0.contains("cros-ec") })
                    .replacingOccurrences(of: "E: SUBSYSTEM=iio\n", with: "E: SUBSYSTEM=iio\nE: \(Self.turned)\n")
                let lid = try #require(blocks.first { $0.contains("location=lid") })
                return base + "\n\n" + lid + "\n"
            case .hid:
                func accelerometer(_ syspath: String, _ number: Int, _ properties: [String]) -> String {
                    Emulation.iioDevice(syspath.dropFirst(4), number: number, properties: properties, attributes: [
                        ("name", "accel_3d"), ("in_accel_offset", "0"), ("in_accel_scale", "0.009806650"),
                        ("in_accel_sampling_frequency", "10.000000"), ("in_accel_hysteresis", "0.000000"),
                        ("in_accel_x_raw", "0"), ("in_accel_y_raw", "0"), ("in_accel_z_raw", "1000"),
                    ])
                }
                return accelerometer(lid, 0, []) + accelerometer(base, 1, ["ACCEL_LOCATION=base", Self.turned])
            }
        }
    }

    @Test("a convertible folded through sysfs from closed to a tablet and back, the base mounted turned (its hwdb matrix): hinge at each stop, postures in order; stood on its side, held; at rest both accelerometers rest",
          .timeLimit(.minutes(1)), arguments: ConvertibleLayout.allCases)
    func convertibleFold(_ layout: ConvertibleLayout) async throws {
        let testbed = Testbed()
        try testbed.add(try layout.devices())
        // Each stop of the simulated fold, out and back, as its readings (0.01 G of noise).
        let steps = SimulatedConvertible.Scenario.fold(turn: 0, hold: 1)
        var machine = SimulatedConvertible(steps: steps, gyroscopeNoise: 0)
        func pose(at time: Double) {
            let readings = machine.readings(at: time)
            try? layout.set(testbed, display: readings.display, base: readings.base)
        }
        // Closed on a table before motiond looks.
        pose(at: 0.5)
        let daemon = try ServedDaemon(["--source", "local:", "--no-config"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        // A new pose is six attribute files written one after the other: a poll between the
        // lid's and the base's would pair the new lid with the old base, a torn pose no real
        // machine reads (at the rest rate it lasts a reading, past the posture's settle time;
        // seen once in a loaded make check). The daemon is held while they are written.
        func atomicPose(at time: Double) {
            kill(daemon.process.pid, SIGSTOP)
            pose(at: time)
            kill(daemon.process.pid, SIGCONT)
        }
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)
        #expect(manager.isHingeAvailable)

        let queue = MotionClientTests.queue("\(layout) fold")
        let angles = MotionClientTests.Recorder<HingeAngle>(), postures = MotionClientTests.Recorder<Posture>()
        let observations = [
            manager.observeHinge(interval: 0.05, on: queue) { angles.add($0, nil, expected: queue) },
            manager.observePosture(on: queue) { postures.add($0, nil, expected: queue) },
        ]
        defer { observations.forEach { $0.cancel() } }

        let out: [Posture] = [.closed, .laptop, .flat, .flat, .stand, .tablet]
        let expected = out + out.reversed().dropFirst()
        for (index, settle) in machine.settleTimes.enumerated() {
            atomicPose(at: settle + 0.5)
            let stop = steps[index].hinge
            #expect(await MotionClientTests.poll(timeout: 5) {
                postures.values.last == expected[index] && angles.values.last.map { abs($0.degrees - stop) < 2 && $0.accuracy != .held } == true
            }, "stop \(stop)°: \(postures.values), angle \(String(describing: angles.values.last))")
            guard steps[index].hinge == 360 else { continue }
            // Folded into a tablet and stood on its side: the lid's and the base's readings lie
            // along the hinge; the angle is held and the posture stays.
            let side = SimulatedConvertible.Step(hinge: 360, baseAttitude: SimulatedConvertible.onItsSide, turn: 0, hold: 1)
            var standing = SimulatedConvertible(steps: [side], gyroscopeNoise: 0)
            let readings = standing.readings(at: 0.5)
            try layout.set(testbed, display: readings.display, base: readings.base)
            #expect(await MotionClientTests.poll(timeout: 5) { angles.values.last?.accuracy == .held }, "\(String(describing: angles.values.last))")
            try await Task.sleep(for: .milliseconds(500))
            #expect(postures.values.last == .tablet && abs((angles.values.last?.degrees ?? 0) - 360) < 2)
        }
        #expect(postures.values == [.closed, .laptop, .flat, .stand, .tablet, .stand, .flat, .laptop, .closed])

        // Only the posture wanted now (as the tablet-mode switch wants it), closed on the
        // table: both accelerometers are read at the rest rate, the base's every third reading.
        observations[0].cancel()
        let client = try await daemon.connect()
        var resting: [String: Double] = [:]
        for id in 1...40 where resting.count < 2 {
            try await client.send(#"{"op":"status","id":\#(id)}"#)
            let sensors = (try await client.reply(id))?["status"].flatMap { ($0 as? [String: Any])?["sensors"] as? [String: Any] }
            resting = [:]
            for kind in ["accelerometer", "baseAccelerometer"] {
                if let interval = (sensors?[kind] as? [String: Any])?["restInterval"] as? Double { resting[kind] = interval }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(resting == ["accelerometer": 0.35, "baseAccelerometer": 1.05], "\(resting)")
    }

    @Test("a cros-ec convertible with a gyroscope in each half: the base's is its own kind (never the display's attitude); read for the hinge only, they carry the angle while it stands on its side",
          .timeLimit(.minutes(1)))
    func crosECGyroscopes() async throws {
        let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
        let base = try #require(blocks.first { $0.contains("location=base") && $0.contains("cros-ec") })
        let lid = try #require(blocks.first { $0.contains("location=lid") })
        let hub = "/sys/devices/platform/GOOG0004:00/cros-ec-dev.1.auto/cros-ec-sensorhub.2.auto"
        let baseGyroscope = "\(hub)/cros-ec-gyro.5.auto/iio:device4", lidGyroscope = "\(hub)/cros-ec-gyro.6.auto/iio:device5"
        let testbed = Testbed()
        // The base's gyroscope has the sysfs mount matrix diag(−1, −1, 1), the lid's the identity.
        try testbed.add(base + "\n\n" + lid + "\n\n"
            + ConvertibleTests.crosGyroscope(String(baseGyroscope.dropFirst(4)), number: 4, location: "base", matrix: "-1, 0, 0; 0, -1, 0; 0, 0, 1")
            + "\n" + ConvertibleTests.crosGyroscope(String(lidGyroscope.dropFirst(4)), number: 5, location: "lid", matrix: "1, 0, 0; 0, 1, 0; 0, 0, 1"))
        var machine = SimulatedConvertible(steps: [.init(hinge: 180, baseAttitude: SimulatedConvertible.onTable, turn: 0, hold: 1)],
                                           accelerometerNoise: 0, gyroscopeNoise: 0)
        func pose() throws {
            let readings = machine.readings(at: 0.5)
            ConvertibleTests.set(testbed, ConvertibleTests.crosLid, try ConvertibleTests.chip(readings.display))
            ConvertibleTests.set(testbed, ConvertibleTests.crosBase, try ConvertibleTests.chip(readings.base))
        }
        func turnBase(_ rate: Double) throws {
            // The base turns about its x axis: what the chip reads through its matrix.
            let raw = try ConvertibleTests.chip(Vector3(rate, 0, 0), matrix: "-1, 0, 0; 0, -1, 0; 0, 0, 1", accelerometer: false)
            testbed.setAttribute(baseGyroscope, "in_anglvel_x_raw", "\(Int((raw.x * 1000).rounded()))\n")
        }
        // Flat on a table.
        try pose()
        let daemon = try ServedDaemon(["--source", "local:", "--no-config"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        func sensors(_ id: Int) async throws -> [String: [String: Any]] {
            try await client.send(#"{"op":"status","id":\#(id)}"#)
            let reply = try await client.reply(id)
            return ((reply?["status"] as? [String: Any])?["sensors"] as? [String: Any])?.compactMapValues { $0 as? [String: Any] } ?? [:]
        }
        let found = try await sensors(1)
        #expect(found["gyroscope"]?["location"] as? String == "display" && found["baseGyroscope"]?["location"] as? String == "base",
                "\(found)")

        let manager = MotionManager(socketPath: daemon.socket)
        let queue = MotionClientTests.queue("cros-ec gyroscopes")
        let angles = MotionClientTests.Recorder<HingeAngle>()
        let hinge = manager.observeHinge(interval: 0.02, on: queue) { angles.add($0, nil, expected: queue) }
        defer { hinge.cancel() }
        #expect(await MotionClientTests.poll(timeout: 5) { angles.values.last.map { abs($0.degrees - 180) < 2 } == true },
                "\(String(describing: angles.values.last))")
        // The hinge reads both gyroscopes (one alone would add nothing to it).
        var running = try await sensors(2)
        #expect(running["gyroscope"]?["period"] != nil && running["baseGyroscope"]?["period"] != nil, "\(running)")

        // Stood on its side, still flat: the accelerometers cannot tell the angle, the gyroscopes
        // carry it (accuracy low, not held); then the base turns about the hinge at 1 rad/s for
        // a second (opening it further: dθ/dt = ω_base.x − ω_display.x): the angle follows, ~57°.
        machine = SimulatedConvertible(steps: [.init(hinge: 180, baseAttitude: SimulatedConvertible.onItsSide, turn: 0, hold: 1)],
                                       accelerometerNoise: 0, gyroscopeNoise: 0)
        try pose()
        #expect(await MotionClientTests.poll(timeout: 5) { angles.values.last?.accuracy == .low }, "\(String(describing: angles.values.last))")
        try await Task.sleep(for: .milliseconds(300))
        #expect(angles.values.last.map { abs($0.degrees - 180) < 2 && $0.accuracy == .low } == true, "\(String(describing: angles.values.last))")
        try turnBase(1)
        try await Task.sleep(for: .seconds(1))
        try turnBase(0)
        try await Task.sleep(for: .milliseconds(300))
        let carried = try #require(angles.values.last)
        #expect(abs(carried.degrees - (180 + 57.3)) < 15 && carried.accuracy == .low, "\(carried)")

        // Only the posture wanted: no gyroscope is read.
        hinge.cancel()
        let posture = manager.observePosture(on: queue) { _ in }
        defer { posture.cancel() }
        var gyroscopesIdle = false
        for id in 3...40 where !gyroscopesIdle {
            running = try await sensors(id)
            gyroscopesIdle = running["accelerometer"]?["period"] != nil && running["gyroscope"]?["period"] == nil
                && running["baseGyroscope"]?["period"] == nil
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(gyroscopesIdle, "\(running)")
    }
}
