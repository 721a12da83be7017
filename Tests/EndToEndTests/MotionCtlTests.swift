import Foundation
import MotionCore
@testable import TestSupport
import Testing

/// `motionctl fuse` and `analyze` (DESIGN.md contracts) run as a user would, on traces written by the tests.
@Suite("motionctl offline commands")
struct MotionCtlTests {
    static var motionctl: String {
        URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motionctl").path
    }

    @Test("a still, level trace with the field's horizontal part along +y fuses to top-north: t,qw,qx,qy,qz")
    func fuseStillTrace() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Face up at rest (acc +9.80665 on z), field 20 µT along device +y and 44 µT down.
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"]
        for i in 0..<100 { lines.append("\(Double(i) / 100),0,0,0,0,0,9.80665,0,20,-44") }
        let input = dir.appendingPathComponent("still.csv").path
        let output = dir.appendingPathComponent("q.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)

        let run = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "t,qw,qx,qy,qz")
        #expect(rows.count == 101)
        // Top edge north, face up: the device +y is reference X (north), +x is −Y (east): a −90° turn
        // about Z, q = (cos 45°, 0, 0, −sin 45°) = (0.70711, 0, 0, −0.70711), up to sign.
        let last = rows.last!.split(separator: ",").map { Double($0)! }
        let sign = last[1] < 0 ? -1.0 : 1.0
        #expect(abs(sign * last[1] - 0.5.squareRoot()) < 1e-6 && abs(sign * last[4] + 0.5.squareRoot()) < 1e-6)
        #expect(abs(last[2]) < 1e-6 && abs(last[3]) < 1e-6)

        // 6D: no magnetometer needed; a trace without one and the 9D frame is refused clearly.
        let six = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output, "--frame", "xArbitraryZVertical"])
        #expect(six.status == 0)
        let noMag = dir.appendingPathComponent("nomag.csv").path
        try "t,acc_x,acc_y,acc_z\n0,0,0,9.80665\n".write(toFile: noMag, atomically: true, encoding: .utf8)
        let refused = try await Emulation.run([Self.motionctl, "fuse", "--input", noMag, "--output", output])
        #expect(refused.status != 0 && refused.stderr.contains("has no magnetometer columns"))
        let badFrame = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output, "--frame", "xTrueNorth"])
        #expect(badFrame.status != 0 && badFrame.stderr.contains("--frame xTrueNorth"))
    }

    @Test("fuse --offline: a gyroscope bias there from the first sample, measured at the trace's final rest, corrects the whole motion before it; the online engine learns it only late")
    func fuseOffline() async throws {
        // 40 s of turns from pose to pose without a pause (4 s each: a turn's rate starts at a
        // sample, which costs the integration up to one sample's turn), then 6 s still; the
        // simulated gyroscope's bias is about (0.6, −0.5, 0.3) °/s.
        let poses = [MotionScript.Pose.portrait, MotionScript.Pose.landscapeLeft, MotionScript.Pose.faceUp,
                     MotionScript.Pose.landscapeRight, MotionScript.Pose.faceDown]
        let script = MotionScript(steps: (0..<10).map { MotionScript.Step(name: "turn", pose: poses[$0 % poses.count], turn: 4, hold: 0) }
            + [MotionScript.Step(name: "rest", pose: poses[9 % poses.count], turn: 0, hold: 6)])
        var settings = SimulatedIMU.Settings()
        settings.gyroscopeBias = Vector3(0.01, -0.008, 0.006)
        var imu = SimulatedIMU(script: script, settings: settings)
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for i in 0..<Int(script.duration * 100) {
            let t = Double(i) / 100
            let g = imu.sample(.gyroscope, at: t, timestamp: t).vector
            let a = imu.sample(.accelerometer, at: t, timestamp: t).vector * -PhysicalConstants.standardGravity // SI, +g up
            lines.append("\(t),\(g.x),\(g.y),\(g.z),\(a.x),\(a.y),\(a.z)")
        }
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("turning.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)

        /// RMS over the motion of the angle between the gravity each attitude implies and the truth's, degrees.
        func inclinationError(_ arguments: [String]) async throws -> Double {
            let output = dir.appendingPathComponent("q.csv").path
            let run = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output, "--frame", "xArbitraryZVertical"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            var sum = 0.0, count = 0
            for row in try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").dropFirst() {
                let v = row.split(separator: ",").map { Double($0)! }
                guard v[0] < 40 else { continue }
                let down = Vector3(0, 0, -1)
                let estimated = Quaternion(w: v[1], x: v[2], y: v[3], z: v[4]).inverse.rotate(down)
                let truth = script.state(at: v[0]).attitude.inverse.rotate(down)
                let angle = acos(max(-1, min(1, estimated.dot(truth) / estimated.norm))) * 180 / .pi
                (sum, count) = (sum + angle * angle, count + 1)
            }
            #expect(count > 3900)
            return (sum / Double(max(1, count))).squareRoot()
        }
        let offline = try await inclinationError(["--offline"]), online = try await inclinationError([])
        #expect(offline < 0.35 && online > 4 * offline, "inclination RMS offline \(offline)°, online \(online)°")
    }

    /// Portrait 2 s, a quarter turn counter-clockwise in 1 s to landscapeLeft, rest, a 4 Hz shake
    /// along x (2 G) for 1.5 s, rest: as a trace in DESIGN.md units.
    static func eventTrace(gyroscope: Bool) -> String {
        let g = 9.80665
        var rows: [String] = [gyroscope ? "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z" : "t,acc_x,acc_y,acc_z"]
        var t = 0.0
        func add(_ a: (Double, Double, Double), turning: Double = 0) {
            let time = String(format: "%.2f", t)
            rows.append(gyroscope ? "\(time),0,0,\(turning),\(a.0),\(a.1),\(a.2)" : "\(time),\(a.0),\(a.1),\(a.2)")
            t += 0.01
        }
        for _ in 0..<200 { add((0, g, 0)) }
        for i in 1...100 {
            let angle = Double.pi / 2 * Double(i) / 100
            add((g * sin(angle), g * cos(angle), 0), turning: .pi / 2)
        }
        for _ in 0..<200 { add((g, 0, 0)) }
        for i in 0..<150 { add((g + 2 * g * sin(2 * .pi * 4 * Double(i) / 100), 0, 0)) }
        for _ in 0..<200 { add((g, 0, 0)) }
        return rows.joined(separator: "\n") + "\n"
    }

    @Test("motionctl analyze prints orientation and shake events, with and without a gyroscope")
    func analyze() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for gyroscope in [true, false] {
            let input = dir.appendingPathComponent("events-\(gyroscope).csv").path
            try Self.eventTrace(gyroscope: gyroscope).write(toFile: input, atomically: true, encoding: .utf8)
            let run = try await Emulation.run([Self.motionctl, "analyze", "--input", input, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let events = try run.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let names = events.compactMap { ($0["orientation"] ?? $0["phase"]) as? String }
            #expect(names == ["portrait", "landscapeLeft", "began", "ended"], "gyroscope \(gyroscope): \(run.stdout)")
            // Rest and motion come from the estimator's rest detection, which needs a gyroscope.
            let gestures = events.compactMap { $0["gesture"] as? String }
            #expect(gestures == (gyroscope ? ["rest", "motion"] : []), "\(run.stdout)")
            // Settled at 3.0 s (the turn's end); reported within 150 ms.
            let landscape = try #require(events.first { $0["orientation"] as? String == "landscapeLeft" })
            let time = try #require(landscape["timestamp"] as? Double)
            #expect(time >= 2.6 && time <= 3.15, "gyroscope \(gyroscope): landscapeLeft at \(time)")
        }
        let text = try await Emulation.run([Self.motionctl, "analyze", "--input", dir.appendingPathComponent("events-true.csv").path])
        #expect(text.stdout.contains("orientation landscapeLeft") && text.stdout.contains("tilt vertical") && text.stdout.contains("7 events in 850 rows"), "\(text.stdout)")
    }

    static let tapping = Emulation.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/broad/dec3_95.2hz/24_disturbed_tapping_A.csv").path

    @Test("motionctl analyze on a real recording (BROAD 24, tapping): the knocks are taps, no shake begins at rest",
          .enabled(if: FileManager.default.fileExists(atPath: tapping), "BROAD dataset not found beside the clone (../shared/datasets/broad)"))
    func analyzeRealRecording() async throws {
        // BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, Data 6(7):72, 2021, doi:10.3390/data6070072, CC BY 4.0.
        let run = try await Emulation.run([Self.motionctl, "analyze", "--input", Self.tapping, "--json"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let taps = events.filter { $0["gesture"] as? String == "tap" }
        #expect(taps.count == 21, "\(taps.count) taps")
        #expect(events.contains { $0["gesture"] as? String == "rest" } && events.contains { $0["orientation"] != nil })
    }

    @Test("no subcommand: the usage on standard error, exit 64; --help still exits 0")
    func noSubcommand() async throws {
        let bare = try await Emulation.run([Self.motionctl])
        #expect(bare.status == 64, "exit \(bare.status)")
        #expect(bare.stderr.contains("USAGE: motionctl <subcommand>") && bare.stderr.contains("status"), "\(bare.stderr)")
        let help = try await Emulation.run([Self.motionctl, "--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS"))
    }

    @Test("fuse, analyze and plot with a missing or malformed input trace, or an output that cannot be written: exit 1 (a failure, not a usage error), naming the file and the system's reason")
    func missingInput() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.csv").path
        let malformed = dir.appendingPathComponent("malformed.csv").path
        try "t,acc_x,acc_y,acc_z\n0,0,zero,9.8\n".write(toFile: malformed, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out").path
        for input in [missing, malformed] {
            for command in [["fuse", "--input", input, "--output", output + ".csv"], ["analyze", "--input", input], ["plot", input, "--output", output + ".svg"]] {
                let run = try await Emulation.run([Self.motionctl] + command)
                #expect(run.status == 1, "\(command): exit \(run.status), \(run.stderr)")
                #expect(run.stderr.contains(input), "\(command): \(run.stderr)")
                if input == missing {
                    #expect(run.stderr.contains("cannot read \(missing): No such file or directory"), "\(command): \(run.stderr)")
                }
            }
        }
        // Where the output cannot go, the system's reason, as for the input.
        let trace = dir.appendingPathComponent("still.csv").path
        try "t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let nowhere = dir.appendingPathComponent("no-such-directory/plot.svg").path
        let plot = try await Emulation.run([Self.motionctl, "plot", trace, "--output", nowhere])
        #expect(plot.status == 1 && plot.stderr.contains("cannot write \(nowhere): No such file or directory"), "\(plot.stderr)")
    }

    @Test("fuse, analyze, plot and motiond --source replay: on /dev/null, /dev/zero or a FIFO say it is not a regular file (at once: no waiting for a writer, no endless read); on bytes that are not UTF-8, where")
    func inputNotATextFile() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("fifo.csv").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let latin1 = dir.appendingPathComponent("latin1.csv").path
        // "t,acc_x,acc_y,acc_z\n0,0,0,9.8 # m/s²" with the ² in Latin-1: byte 36, 0xB2.
        try Data(Array("t,acc_x,acc_y,acc_z\n0,0,0,9.8 # m/s".utf8) + [0xB2, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        let output = dir.appendingPathComponent("out").path
        for (input, reason) in [("/dev/null", "not a regular file"), ("/dev/zero", "not a regular file"), (fifo, "not a regular file"),
                                (latin1, "not UTF-8 text (byte 36)")] {
            for command in [["fuse", "--input", input, "--output", output + ".csv"], ["analyze", "--input", input], ["plot", input, "--output", output + ".svg"]] {
                let run = try await Emulation.run([Self.motionctl] + command, timeout: 20)
                #expect(run.status == 1, "\(command): exit \(run.status), \(run.stderr)")
                #expect(run.stderr == "motionctl: \(input): \(reason)\n", "\(command): \(run.stderr)")
            }
        }
        for input in ["/dev/zero", fifo] {
            let replay = try await Emulation.run([Emulation.motiond, "--source", "replay:\(input)", "--no-socket", "--print-samples", "--count", "1"], timeout: 20)
            #expect(replay.status != 0 && replay.stderr.contains("cannot replay \(input): not a regular file"), "\(replay.stderr)")
        }
    }
}
