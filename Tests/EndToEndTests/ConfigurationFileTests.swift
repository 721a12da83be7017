import Foundation
import Glibc
import MotionProtocol
@testable import TestSupport
import Testing

/// motiond run from a configuration file, as the service runs it: the file's settings in force,
/// the command line's winning, and a file that cannot be used refusing the start.
@Suite("Configuration file: start")
struct ConfigurationFileTests {
    @Test("a bad file: motiond does not start (exit 78, EX_CONFIG), the error names file, line and key, no socket appears")
    func badFile() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        let socket = directory.appendingPathComponent("motiond.sock").path
        try """
            # comment
            [detectors.shake]
            threshold = "hard"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try await Emulation.run([Emulation.motiond, "--config", config, "--source", "sim:", "--socket", socket])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("cannot start with this configuration: \(config):3: detectors.shake.threshold: expected a number"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket))

        let missing = try await Emulation.run([Emulation.motiond, "--config", directory.appendingPathComponent("none.toml").path, "--source", "sim:"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("none.toml: no such file"), "\(missing.stderr)")
    }

    @Test("files the TOML library aborts on (fuzz findings) are refused with exit 78 at start and by --check-config, and a reload to one keeps the daemon running")
    func parserAborts() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        let socket = directory.appendingPathComponent("motiond.sock").path
        // Each makes toml++ (TOMLKit 0.6.0) fail an assertion and abort the process reading it.
        for text in ["source = \"sim:\"\nsensors = [}\n", "[.]\n", "\u{FEFF}[:]\n"] {
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let start = try await Emulation.run([Emulation.motiond, "--config", config, "--source", "sim:", "--socket", socket])
            #expect(start.status == 78, "\(text.debugDescription): \(start.stderr)")
            #expect(start.stderr.contains("cannot start with this configuration: \(config): the TOML parser crashed on this file"), "\(start.stderr)")
            let check = try await Emulation.run([Emulation.motiond, "--check-config", "--config", config])
            #expect(check.status == 78)
            #expect(check.stderr.contains("\(config): the TOML parser crashed on this file"), "\(check.stderr)")
        }
        try "source = \"sim:\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let good = try await Emulation.run([Emulation.motiond, "--check-config", "--config", config])
        #expect(good.status == 0)
        #expect(good.stdout == "\(config): OK\n")

        let daemon = try ServedDaemon([], configuration: "source = \"sim:\"\n")
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        try "source = \"sim:\"\nsensors = [}\n".write(toFile: daemon.configurationPath, atomically: true, encoding: .utf8)
        kill(daemon.process.pid, SIGHUP)
        #expect(await daemon.process.wait(timeout: 10) { $0.stderr.contains("configuration not reloaded, the one in use stays: \(daemon.configurationPath): the TOML parser crashed on this file") },
                "\(daemon.process.stderr.suffix(1500))")
        try await client.send(#"{"op":"status","id":1}"#)
        #expect(try await client.reply(1)?["ok"] as? Bool == true, "still serving")
        #expect(daemon.process.isRunning)
    }

    @Test("--check-config refuses a string with an escaped NUL, naming the line and key")
    func checkConfigRefusesNUL() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        try "source = \"sim:\"\n[convertible]\ntablet-mode-switch = \"on\\u0000garbage\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let check = try await Emulation.run([Emulation.motiond, "--check-config", "--config", config], timeout: 20)
        #expect(check.status == 78 && !check.stdout.contains("OK"), "\(check.stdout)")
        #expect(check.stderr.contains(#"\#(config):3: convertible.tablet-mode-switch: expected auto, on or off, got a string with a NUL character (\u0000) in it"#),
                "\(check.stderr)")
    }

    @Test("--check-config refuses a replay trace that is a FIFO as not a regular file, without waiting for a writer")
    func checkConfigRefusesFIFOTrace() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        let fifo = directory.appendingPathComponent("trace.csv").path
        try #require(mkfifo(fifo, 0o600) == 0)
        try "source = \"replay:\(fifo)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let check = try await Emulation.run([Emulation.motiond, "--check-config", "--config", config], timeout: 20)
        #expect(check.status == 78)
        #expect(check.stderr.contains("\(config):1: source: cannot read the trace \(fifo): not a regular file"), "\(check.stderr)")
    }

    @Test("a replay trace the file names that is missing or no trace: exit 78 (EX_CONFIG) naming the file and source")
    func badReplaySource() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        let trace = directory.appendingPathComponent("trace.csv").path
        try "source = \"replay:\(trace)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let missing = try await Emulation.run([Emulation.motiond, "--config", config, "--no-socket", "--print-samples", "--count", "1"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("cannot start with this configuration: \(config):1: source: cannot read the trace \(trace)"), "\(missing.stderr)")

        try "this is not a trace\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let notATrace = try await Emulation.run([Emulation.motiond, "--config", config, "--no-socket", "--print-samples", "--count", "1"])
        #expect(notATrace.status == 78)
        #expect(notATrace.stderr.contains("cannot start with this configuration: \(config): source:"), "\(notATrace.stderr)")
    }

    @Test("the file's source, poll period, socket, true north and state are used; options given on the command line win")
    func fileInForce() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("motiond.toml").path
        let socket = directory.appendingPathComponent("from-file.sock").path
        let state = directory.appendingPathComponent("engine.json").path
        try """
            source = "sim:"
            poll-period = 0.05
            declination = 4.5
            [socket]
            path = "\(socket)"
            mode = "0600"
            [state]
            path = "\(state)"
            """.write(toFile: config, atomically: true, encoding: .utf8)

        let daemon = try RunningProcess([Emulation.motiond, "--config", config])
        #expect(await daemon.wait(timeout: 10) { $0.stderr.contains("listening on \(socket)") }, "\(daemon.stderr)")
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let client = try await SocketClient(path: socket)
        let hello = try #require(try await client.hello())
        #expect((hello["frames"] as? [String])?.contains("xTrueNorthZVertical") == true, "declination from the file: \(hello)")
        // Nobody gets values faster than the poll period, root included.
        #expect((hello["access"] as? [String: Any])?["minimumInterval"] as? Double == 0.05)
        try await client.send(.subscribe(.init(id: 1, stream: .gyro, interval: 0.01)))
        #expect(try await client.reply(1)?["interval"] as? Double == 0.05)
        #expect(daemon.stop() == 0)
        // The configured setup (its source, serving its socket) keeps its state.
        #expect(FileManager.default.fileExists(atPath: state), "\(daemon.stderr)")
        try FileManager.default.removeItem(atPath: state)

        // Given on the command line: another socket, another source; the configured state file
        // is then left alone (it belongs to the configured source).
        let other = directory.appendingPathComponent("from-options.sock").path
        let overridden = try RunningProcess([Emulation.motiond, "--config", config, "--socket", other, "--source", "sim:", "--declination=-2"])
        #expect(await overridden.wait(timeout: 10) { $0.stderr.contains("listening on \(other)") }, "\(overridden.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(overridden.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: state), "\(overridden.stderr)")
    }
}
