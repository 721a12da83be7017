import Foundation
import Testing
import MotionClient
import MotionCore
import MotionProtocol

/// A convertible through the daemon: a fold replayed from a trace with a base accelerometer,
/// seen on the `hinge` and `posture` streams by a socket client and through MotionClient.
@Suite("Convertible: hinge and posture through motiond", .serialized)
struct ConvertibleTests {
    /// The way out of the simulated fold (closed → 100° → flat → lifted → stand → tablet),
    /// 0.6 s a stage, 1.2 s holds, as a trace at 50 Hz with `base_acc_*` columns.
    static func foldTrace(in directory: URL) throws -> (path: String, stops: [Double]) {
        let steps = Array(SimulatedConvertible.Scenario.fold(turn: 0.6, hold: 1.2).prefix(6))
        var machine = SimulatedConvertible(steps: steps)
        let g = PhysicalConstants.standardGravity
        var text = "t,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z\n"
        for i in 0..<Int(machine.duration * 50) + 50 {
            let t = Double(i) / 50
            let r = machine.readings(at: t)
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
        let (trace, stops) = try Self.foldTrace(in: directory)
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
        let messages = try await client.collect(for: 13)

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

    @Test("a cros-ec convertible folded through sysfs, the base mounted turned (its hwdb matrix): hinge at each stop, postures in order; stood on its side, held",
          .timeLimit(.minutes(1)))
    func crosECFold() async throws {
        let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
        // The base chip sits turned half about z: its hwdb matrix turns it back (x, y negated).
        let base = try #require(blocks.first { $0.contains("location=base") && $0.contains("cros-ec") })
            .replacingOccurrences(of: "E: SUBSYSTEM=iio\n", with: "E: SUBSYSTEM=iio\nE: ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, -1, 0; 0, 0, 1\n")
        let lid = try #require(blocks.first { $0.contains("location=lid") })
        let testbed = Testbed()
        try testbed.add(base + "\n\n" + lid + "\n")
        // Each stop of the simulated fold's way out, as its noise-free readings; the chip under
        // the base reads (−x, −y, z) of what the base frame does.
        let steps = Array(SimulatedConvertible.Scenario.fold(turn: 0, hold: 1).prefix(6))
        var machine = SimulatedConvertible(steps: steps, accelerometerNoise: 0, gyroscopeNoise: 0)
        func pose(at time: Double) {
            let readings = machine.readings(at: time)
            Self.set(testbed, Self.crosLid, readings.display)
            Self.set(testbed, Self.crosBase, Vector3(-readings.base.x, -readings.base.y, readings.base.z))
        }
        // Closed on a table before motiond looks.
        pose(at: 0.5)
        let daemon = try ServedDaemon(["--source", "local:", "--no-config"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)
        #expect(manager.isHingeAvailable)

        let queue = MotionClientTests.queue("cros-ec fold")
        let angles = MotionClientTests.Recorder<HingeAngle>(), postures = MotionClientTests.Recorder<Posture>()
        let observations = [
            manager.observeHinge(interval: 0.05, on: queue) { angles.add($0, nil, expected: queue) },
            manager.observePosture(on: queue) { postures.add($0, nil, expected: queue) },
        ]
        defer { observations.forEach { $0.cancel() } }

        let expected: [Posture] = [.closed, .laptop, .flat, .flat, .stand, .tablet]
        for (index, settle) in machine.settleTimes.enumerated() {
            pose(at: settle + 0.5)
            let stop = steps[index].hinge
            #expect(await MotionClientTests.poll(timeout: 5) {
                postures.values.last == expected[index] && angles.values.last.map { abs($0.degrees - stop) < 2 && $0.accuracy != .held } == true
            }, "stop \(stop)°: \(postures.values), angle \(String(describing: angles.values.last))")
        }
        #expect(postures.values == [.closed, .laptop, .flat, .stand, .tablet])

        // Folded flat into a tablet and stood on its side: the lid's and the base's readings
        // lie along the hinge; the angle is held and the posture stays.
        let side = SimulatedConvertible.Step(hinge: 360, baseAttitude: SimulatedConvertible.onItsSide, turn: 0, hold: 1)
        machine = SimulatedConvertible(steps: [side], accelerometerNoise: 0, gyroscopeNoise: 0)
        pose(at: 0.5)
        #expect(await MotionClientTests.poll(timeout: 5) { angles.values.last?.accuracy == .held }, "\(String(describing: angles.values.last))")
        try await Task.sleep(for: .milliseconds(500))
        #expect(postures.values.last == .tablet && abs((angles.values.last?.degrees ?? 0) - 360) < 2)

        // Only the posture wanted now (as the tablet-mode switch wants it), both halves still:
        // both accelerometers are read at the rest rate.
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
        #expect(resting == ["accelerometer": 0.35, "baseAccelerometer": 0.35], "\(resting)")
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
        let messages = try await client.collect(for: 13)
        #expect(messages.compactMap { $0["posture"] as? String }.last == "tablet")
        // What it says of the device (the debug lines of its subscriptions aside).
        let said = daemon.process.stderr.split(separator: "\n").filter { $0.contains("tablet-mode switch") && !$0.contains("subscribed") }
        if FileManager.default.fileExists(atPath: "/dev/uinput") {
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
}

