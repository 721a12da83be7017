import Foundation
import Glibc
@testable import TestSupport
import Testing

/// motiond fusing a replayed trace as a user runs it: device motion on standard output in the
/// protocol's JSON shape, reference frames, and the engine state file across restarts.
@Suite("motiond device motion")
struct MotiondMotionTests {
    /// Held upright (top edge up), the back facing east: the trace in DESIGN.md units
    /// (m/s² with +9.81 on the up axis, µT). Device x points south, so the 20 µT northward field
    /// reads −20 on x and the 44 µT downward part −44 on y.
    static func uprightFacingEast(in dir: URL, rows: Int = 300) throws -> String {
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"]
        for i in 0..<rows { lines.append("\(Double(i) / 100),0,0,0,0,9.80665,0,-20,-44,0") }
        let path = dir.appendingPathComponent("upright.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func lastMotion(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("--print-motion prints deviceMotion lines: gravity, heading, frames with and without a declination")
    func printsDeviceMotion() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = try Self.uprightFacingEast(in: dir)
        let base = [Emulation.motiond, "--source", "replay:\(trace)", "--replay-fast", "--json", "--count", "200",
                    "--magnetometer-calibration", "trusted"]

        let magnetic = try await Emulation.run(base + ["--print-motion", "xMagneticNorthZVertical"])
        #expect(magnetic.status == 0, "\(magnetic.stderr)")
        let motion = try Self.lastMotion(magnetic.stdout)
        #expect(motion["type"] as? String == "deviceMotion")
        #expect(motion["frame"] as? String == "xMagneticNorthZVertical")
        let gravity = jsonVector(motion["gravity"])
        #expect(abs(gravity[0]) < 1e-3 && abs(gravity[1] + 1) < 1e-3 && abs(gravity[2]) < 1e-3, "\(gravity)")
        // Upright, the heading is where the back faces: east.
        #expect(abs((motion["heading"] as? Double ?? .nan) - 90) < 0.5, "\(motion)")
        let field = motion["magneticField"] as? [String: Any]
        #expect(field?["accuracy"] as? String == "high") // trusted calibration

        let trueNorth = try await Emulation.run(base + ["--print-motion", "xTrueNorthZVertical", "--declination=-4"])
        #expect(abs((try Self.lastMotion(trueNorth.stdout)["heading"] as? Double ?? .nan) - 86) < 0.5)

        // No declination: the frame is unavailable, said once, nothing printed until the duration ends.
        let refused = try await Emulation.run([Emulation.motiond, "--source", "replay:\(trace)", "--replay-fast",
                                               "--print-motion", "xTrueNorthZVertical", "--duration", "2"])
        #expect(refused.status == 0)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.components(separatedBy: "xTrueNorthZVertical is unavailable: no declination").count == 2, "\(refused.stderr)")

        let badFrame = try await Emulation.run(base + ["--print-motion", "north"])
        #expect(badFrame.status != 0 && badFrame.stderr.contains("--print-motion north"))
        let badLocation = try await Emulation.run(base + ["--print-motion", "xTrueNorthZVertical", "--latitude", "95", "--longitude", "10"])
        #expect(badLocation.status != 0 && badLocation.stderr.contains("latitude 95.0° is not within"), "\(badLocation.stderr)")
    }

    @Test("after a gap in the samples (the device turned meanwhile) the attitude and heading are right at once, and the journal says why")
    func gapInTrace() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 20 s upright with the back facing east, nothing for 8 s, then 5 s lying face up with the
        // top edge pointing north (trace units: m/s² with +9.81 on the up axis, µT).
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"]
        for i in 0..<2000 { lines.append("\(Double(i) / 100),0,0,0,0,9.80665,0,-20,-44,0") }
        for i in 2800..<3300 { lines.append("\(Double(i) / 100),0,0,0,0,0,9.80665,0,20,-44") }
        let trace = dir.appendingPathComponent("gap.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let run = try await Emulation.run([Emulation.motiond, "--source", "replay:\(trace)", "--replay-fast", "--json",
                                           "--magnetometer-calibration", "trusted", "--print-motion", "xMagneticNorthZVertical"])
        #expect(run.status == 0, "\(run.stderr)")
        let motions = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let before = try #require(motions.last { ($0["timestamp"] as? Double ?? 0) < 20 })
        #expect(abs((before["heading"] as? Double ?? .nan) - 90) < 1, "\(before)")
        // The first value 0.1 s after the gap: lying flat, heading north (it eased from east at τ 20 s before).
        let after = try #require(motions.first { ($0["timestamp"] as? Double ?? 0) >= 28.1 })
        let gravity = jsonVector(after["gravity"])
        #expect(abs(gravity[0]) < 1e-3 && abs(gravity[1]) < 1e-3 && abs(gravity[2] + 1) < 1e-3, "\(gravity)")
        let heading = after["heading"] as? Double ?? .nan
        #expect(min(heading, 360 - heading) < 1, "heading \(heading)° 0.1 s after the gap")
        #expect(run.stderr.components(separatedBy: "the motion samples stopped for more than 0.5 s").count == 2, "\(run.stderr)")
    }

    @Test("motiond stopped (SIGSTOP) and continued: the samples it missed are a gap, and the attitude restarts from gravity")
    func stoppedAndContinued() async throws {
        // Longer than the waits below can take together (27.5 s), so the daemon's own end never
        // decides the last one (it did once, on a loaded machine); terminated when done.
        let daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--json", "--print-motion", "xArbitraryZVertical",
                                         "--duration", "60"])
        defer { daemon.terminate() }
        #expect(await daemon.wait(timeout: 10) { $0.stdout.split(separator: "\n").count >= 20 })
        kill(daemon.pid, SIGSTOP)
        try await Task.sleep(for: .seconds(2.5))
        kill(daemon.pid, SIGCONT)
        #expect(await daemon.wait(timeout: 10) { $0.stderr.contains("the motion samples stopped for more than 0.5 s") }, "\(daemon.stderr)")
        let count = daemon.stdout.split(separator: "\n").count
        #expect(await daemon.wait(timeout: 5) { $0.stdout.split(separator: "\n").count > count + 10 }, "device motion goes on")
    }

    @Test("the learned state is saved on exit and restored; a corrupt or implausible state file is moved aside, not overwritten blindly")
    func stateFile() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A still device with a 0.6 °/s gyroscope bias on x: rest detection learns it.
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for i in 0..<600 { lines.append("\(Double(i) / 100),0.01,0,0,0,0,9.80665") }
        let trace = dir.appendingPathComponent("still.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let state = dir.appendingPathComponent("state/engine.json").path
        let command = [Emulation.motiond, "--source", "replay:\(trace)", "--replay-fast", "--print-motion", "xArbitraryZVertical",
                       "--count", "590", "--state-file", state]

        let first = try await Emulation.run(command)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("no saved engine state"))
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any])
        let bias = jsonVector(saved["gyroscopeBias"])
        #expect(abs(bias[0] - 0.01) < 1e-3 && abs(bias[1]) < 1e-3, "\(bias)")

        let second = try await Emulation.run(command)
        #expect(second.stderr.contains("engine state restored from \(state)"), "\(second.stderr)")

        try "{ not json".write(toFile: state, atomically: true, encoding: .utf8)
        let corrupt = try await Emulation.run(command)
        #expect(corrupt.status == 0)
        #expect(corrupt.stderr.contains("cannot read engine state \(state)"), "\(corrupt.stderr)")
        #expect(try String(contentsOfFile: state + ".corrupt", encoding: .utf8) == "{ not json")
        #expect(FileManager.default.fileExists(atPath: state)) // a fresh state was saved on exit

        // Valid JSON, but a bias no estimator learns: moved aside the same way, the field named.
        var implausible = saved
        implausible["gyroscopeBias"] = ["x": 1e308, "y": 0, "z": 0]
        let written = try JSONSerialization.data(withJSONObject: implausible)
        try written.write(to: URL(fileURLWithPath: state))
        let refused = try await Emulation.run(command)
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("cannot use engine state \(state): not a state the engine learns: gyroscopeBias:"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: state + ".corrupt")) == written)
    }

    @Test("the learned bias is saved while running, so it survives kill -9; an unmovable corrupt file is never overwritten")
    func stateSurvivesKill() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let state = dir.appendingPathComponent("engine.json").path
        // The simulated IMU rests for its first 2 s with a gyroscope bias of (0.004, −0.003, 0.002) rad/s.
        let daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--print-motion", "xArbitraryZVertical",
                                         "--state-file", state, "--state-save-interval", "0.5"])
        defer { daemon.terminate() }
        func savedBias() -> [Double]? {
            guard let data = FileManager.default.contents(atPath: state),
                  let saved = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            return jsonVector(saved["gyroscopeBias"])
        }
        let deadline = Date().addingTimeInterval(15)
        // Saved as soon as the estimate has moved 0.001 rad/s towards the true bias.
        while Date() < deadline, (savedBias().map { $0[0] <= 0.001 } ?? true) {
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(daemon.pid, SIGKILL)
        _ = daemon.stop()
        let bias = try #require(savedBias(), "no complete state file while running")
        #expect(bias[0] > 0.001 && bias[0] < 0.005 && bias[1] < 0, "learning towards (0.004, −0.003, 0.002): \(bias)")
        #expect(!FileManager.default.fileExists(atPath: state + ".tmp"), "no temporary file left behind")

        let restarted = try await Emulation.run([Emulation.motiond, "--source", "sim:", "--print-motion", "xArbitraryZVertical",
                                                 "--count", "5", "--state-file", state])
        #expect(restarted.stderr.contains("engine state restored from \(state)"), "\(restarted.stderr)")

        // A corrupt file that cannot be moved aside (immutable, so even root cannot) stays as it
        // is. Needs a file system with attributes (not tmpfs).
        let lockedState = dir.appendingPathComponent("locked.json").path
        try "{ not json".write(toFile: lockedState, atomically: true, encoding: .utf8)
        let motiond = [Emulation.motiond, "--source", "sim:", "--print-motion", "xArbitraryZVertical", "--count", "5", "--state-file", lockedState]
        let quoted = Emulation.shellQuote(lockedState)
        let sticky = try await Emulation.run(["sh", "-c", "chattr +i \(quoted) 2>/dev/null || exit 77; \(motiond.map(Emulation.shellQuote).joined(separator: " ")); status=$?; chattr -i \(quoted); exit $status"])
        if sticky.status != 77 {
            #expect(sticky.status == 0, "\(sticky.stderr)")
            #expect(sticky.stderr.contains("cannot move it aside either"), "\(sticky.stderr)")
            #expect(try String(contentsOfFile: lockedState, encoding: .utf8) == "{ not json")
        }
    }
}
