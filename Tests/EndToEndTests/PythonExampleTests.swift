import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// examples/python/motion_client.py, a client in another language using only the documented
/// protocol, against a real `motiond` on the simulated IMU.
@Suite("Python example client")
struct PythonExampleTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let script = Emulation.packageRoot.appendingPathComponent("examples/python/motion_client.py").path

    @Test("prints attitude lines and the orientation, --count stops it, --json prints the messages as sent",
          .enabled(if: python != nil, "python3 not installed"))
    func client() async throws {
        let python = try #require(Self.python)
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A device lying face up and still (a replay: the simulation would move on while a busy
        // machine runs other tests).
        let daemon = try ServedDaemon(["--source", "replay:\(try SocketStreamTests.stillTrace(in: directory))"])
        defer { _ = daemon.stop() }
        // The socket appears once the daemon listens.
        _ = try await daemon.connect()

        let text = try await Emulation.run([python, Self.script, daemon.socket, "--count", "5"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("# connected to motiond \(MotionVersion.current) at \(daemon.socket): sensors accelerometer, gyroscope, magnetometer; access full (every stream)") == true,
                "\(text.stdout)")
        let attitudes = lines.filter { $0.contains("attitude roll=") }
        #expect(attitudes.count == 5 && attitudes.allSatisfy { $0.contains("pitch=") && $0.contains("yaw=") && $0.contains("°") }, "\(text.stdout)")
        // Face up and still: small angles.
        let roll = attitudes.first.flatMap { $0.split(separator: "roll=").last?.split(separator: "°").first }.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(roll.map { abs($0) < 5 } == true, "\(attitudes.first ?? "")")
        #expect(lines.contains { $0.hasSuffix("orientation faceUp") }, "\(text.stdout)")

        var environment = RunningProcess.plainEnvironment
        environment["MOTIOND_SOCKET"] = daemon.socket
        let json = try await Emulation.run([python, Self.script, "--count", "5", "--json", "--interval", "0.05"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let messages = json.jsonLines
        #expect(messages.count == json.stdout.split(separator: "\n").count)
        let motions = messages.filter { $0["type"] as? String == "deviceMotion" }
        #expect(motions.count == 5 && messages.allSatisfy { ["deviceMotion", "orientation"].contains($0["type"] as? String) })
        #expect(motions.allSatisfy { ($0["attitude"] as? [String: Any])?["roll"] is Double && $0["frame"] as? String == "xArbitraryZVertical" })
        let times = motions.compactMap { $0["timestamp"] as? Double }
        // --interval 0.05, decimated from the hardware's 50 Hz: 40 or 60 ms apart.
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 > 0.035 && $1 - $0 < 0.065 }, "\(times)")

        // --latency: the values come in batches (beyond Core Motion), every one of them, in order.
        let batched = try await Emulation.run([python, Self.script, daemon.socket, "--count", "30", "--json", "--interval", "0.01", "--latency", "0.2"])
        #expect(batched.status == 0, "\(batched.stderr)")
        let batchedTimes = batched.jsonLines.filter { $0["type"] as? String == "deviceMotion" }.compactMap { $0["timestamp"] as? Double }
        #expect(batchedTimes.count == 30 && zip(batchedTimes, batchedTimes.dropFirst()).allSatisfy { $1 - $0 > 0.005 && $1 - $0 < 0.015 },
                "\(batchedTimes)")

        // --surroundings on a machine without light or proximity sensors: said once each, the
        // tilt of a device lying face up; --duration ends it.
        let surroundings = try await Emulation.run([python, Self.script, daemon.socket, "--surroundings", "--duration", "1"])
        #expect(surroundings.status == 0, "\(surroundings.stderr)")
        let said = surroundings.stdout.split(separator: "\n")
        #expect(said.filter { $0 == "# no light sensor now: light values start if one appears" }.count == 1, "\(surroundings.stdout)")
        #expect(said.filter { $0 == "# no proximity sensor now: proximity values start if one appears" }.count == 1, "\(surroundings.stdout)")
        #expect(said.contains { $0.hasSuffix("  tilt faceUp") } && said.contains { $0.contains("attitude roll=") }, "\(surroundings.stdout)")

        // --convertible on a machine without a base accelerometer: said once for each stream.
        let convertible = try await Emulation.run([python, Self.script, daemon.socket, "--convertible", "--duration", "1"])
        #expect(convertible.status == 0, "\(convertible.stderr)")
        let told = convertible.stdout.split(separator: "\n")
        for stream in ["hinge", "posture"] {
            #expect(told.filter { $0 == "# no base accelerometer sensor now: \(stream) values start if one appears" }.count == 1, "\(convertible.stdout)")
        }
    }

    @Test("errors: 69 without a daemon, 1 with the daemon's reason for a refused subscription",
          .enabled(if: python != nil, "python3 not installed"))
    func errors() async throws {
        let python = try #require(Self.python)
        let missing = try await Emulation.run([python, Self.script, "/nonexistent/motiond.sock"])
        #expect(missing.status == 69 && missing.stderr.contains("cannot reach motiond"), "\(missing.stderr)")

        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let refused = try await Emulation.run([python, Self.script, daemon.socket, "--frame", "xTrueNorthZVertical"])
        #expect(refused.status == 1 && refused.stderr.contains("subscribe deviceMotion") && refused.stderr.contains("frameUnavailable"), "\(refused.stderr)")
    }
}
