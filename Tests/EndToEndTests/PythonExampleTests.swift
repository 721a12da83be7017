import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// examples/python/motion_client.py, a short program on the `motiond` Python package
/// (clients/python), against a real `motiond` on a replayed trace and on the simulated IMU.
@Suite("Python example client")
struct PythonExampleTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let script = Emulation.packageRoot.appendingPathComponent("examples/python/motion_client.py").path

    /// The environment of a system with the package installed: its source tree on PYTHONPATH.
    static var installed: [String: String] {
        var environment = RunningProcess.plainEnvironment
        environment["PYTHONPATH"] = Emulation.packageRoot.appendingPathComponent("clients/python/src").path
        return environment
    }

    /// The timestamps of the attitude lines (each line starts with its value's timestamp).
    static func attitudeTimes(_ output: ProcessOutput) -> [Double] {
        output.stdout.split(separator: "\n").filter { $0.contains("attitude roll=") }
            .compactMap { $0.split(separator: " ").first.flatMap { Double($0) } }
    }

    @Test("prints the hello, attitude lines and the orientation; --count, --interval, --latency, --surroundings, --convertible",
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

        let text = try await Emulation.run([python, Self.script, daemon.socket, "--count", "5"], environment: Self.installed)
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

        // The socket from $MOTIOND_SOCKET; only the hello, orientation and attitude lines.
        var environment = Self.installed
        environment["MOTIOND_SOCKET"] = daemon.socket
        let spaced = try await Emulation.run([python, Self.script, "--count", "5", "--interval", "0.05"], environment: environment)
        #expect(spaced.status == 0, "\(spaced.stderr)")
        let spacedLines = spaced.stdout.split(separator: "\n")
        #expect(spacedLines.first?.hasPrefix("# connected to motiond") == true
                && spacedLines.dropFirst().allSatisfy { $0.contains("  attitude roll=") || $0.contains("  orientation ") }, "\(spaced.stdout)")
        let times = Self.attitudeTimes(spaced)
        // --interval 0.05, decimated from the hardware's 50 Hz: 40 or 60 ms apart.
        #expect(times.count == 5 && zip(times, times.dropFirst()).allSatisfy { $1 - $0 > 0.035 && $1 - $0 < 0.065 }, "\(times)")

        // --latency: the values come in batches (beyond Core Motion), every one of them, in order.
        let batched = try await Emulation.run([python, Self.script, daemon.socket, "--count", "30", "--interval", "0.01", "--latency", "0.2"],
                                              environment: Self.installed)
        #expect(batched.status == 0, "\(batched.stderr)")
        let batchedTimes = Self.attitudeTimes(batched)
        #expect(batchedTimes.count == 30 && zip(batchedTimes, batchedTimes.dropFirst()).allSatisfy { $1 - $0 > 0.005 && $1 - $0 < 0.015 },
                "\(batchedTimes)")

        // --surroundings on a machine without light or proximity sensors: said once each, the
        // tilt of a device lying face up; --duration ends it.
        let surroundings = try await Emulation.run([python, Self.script, daemon.socket, "--surroundings", "--duration", "1"],
                                                   environment: Self.installed)
        #expect(surroundings.status == 0, "\(surroundings.stderr)")
        let said = surroundings.stdout.split(separator: "\n")
        #expect(said.filter { $0 == "# no light sensor now: light values start if one appears" }.count == 1, "\(surroundings.stdout)")
        #expect(said.filter { $0 == "# no proximity sensor now: proximity values start if one appears" }.count == 1, "\(surroundings.stdout)")
        #expect(said.contains { $0.hasSuffix("  tilt faceUp") } && said.contains { $0.contains("attitude roll=") }, "\(surroundings.stdout)")

        // --convertible on a machine without a base accelerometer (named as the hello names it):
        // said once for each stream.
        let convertible = try await Emulation.run([python, Self.script, daemon.socket, "--convertible", "--duration", "1"],
                                                  environment: Self.installed)
        #expect(convertible.status == 0, "\(convertible.stderr)")
        let told = convertible.stdout.split(separator: "\n")
        for stream in ["hinge", "posture"] {
            #expect(told.filter { $0 == "# no baseAccelerometer sensor now: \(stream) values start if one appears" }.count == 1, "\(convertible.stdout)")
        }
    }

    @Test("errors: 69 without a daemon, 1 with the daemon's reason for a refused subscription, 75 when it stops",
          .enabled(if: python != nil, "python3 not installed"))
    func errors() async throws {
        let python = try #require(Self.python)
        let missing = try await Emulation.run([python, Self.script, "/nonexistent/motiond.sock"], environment: Self.installed)
        #expect(missing.status == 69 && missing.stderr.contains("cannot reach motiond"), "\(missing.stderr)")

        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let refused = try await Emulation.run([python, Self.script, daemon.socket, "--frame", "xTrueNorthZVertical"],
                                              environment: Self.installed)
        #expect(refused.status == 1 && refused.stderr.contains("subscribe deviceMotion") && refused.stderr.contains("frameUnavailable"), "\(refused.stderr)")

        // A daemon that stops says goodbye: the example exits 75, as motionctl does.
        let running = try RunningProcess([python, Self.script, daemon.socket], environment: Self.installed)
        #expect(await running.wait(timeout: 20) { $0.stdout.contains("attitude roll=") }, "\(running.stdout) \(running.stderr)")
        _ = daemon.stop()
        #expect(await running.wait(timeout: 20) { $0.status != -1 })
        #expect(running.status == 75 && running.stderr.contains("motiond said goodbye"), "\(running.status): \(running.stderr)")
    }

    @Test("without the motiond package: one line saying how to install it, exit 1",
          .enabled(if: python != nil, "python3 not installed"))
    func packageMissing() async throws {
        let python = try #require(Self.python)
        // -I ignores PYTHONPATH and the user's site-packages, -S the system's (where
        // python3-motiond installs it): only the standard library is importable.
        let run = try await Emulation.run([python, "-I", "-S", Self.script, "--count", "1"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run.status) \(run.stdout)")
        #expect(run.stderr == "motion_client: the motiond package is not installed: install python3-motiond, or pip install ./clients/python\n",
                "\(run.stderr)")
    }
}
