import Foundation
import MotionProtocol
import Testing

/// What people expect of Linux commands, run as they would run them: `--version` on every
/// installed command (one version, ``MotionVersion``, also what the daemon says it is), a
/// `motionctl --help` with only what users run, and a CHANGELOG whose newest entry is this
/// version.
@Suite("Command conventions: versions, help, changelog")
struct CommandConventionsTests {
    @Test("--version: motiond, motionctl and motiond-rotate (the motionctl binary through its link) print the one version")
    func versions() async throws {
        for command in [Emulation.motiond, MotionCtlTests.motionctl, Compositors.motiondRotate] {
            let output = try await Emulation.run([command, "--version"])
            #expect(output.status == 0 && output.stdout == MotionVersion.current + "\n", "\(command): \(output.stdout) \(output.stderr)")
        }
        #expect(MotionVersion.current.split(separator: ".").count == 3 && MotionVersion.current.allSatisfy { $0.isNumber || $0 == "." })
    }

    @Test("motionctl --help lists what users run and no benchmark; the link runs motiond-rotate, not motionctl")
    func help() async throws {
        let help = try await Emulation.run([MotionCtlTests.motionctl, "--help"])
        #expect(help.status == 0)
        for command in ["monitor", "get", "status", "record", "calibrate", "fuse", "analyze", "plot"] {
            #expect(help.stdout.contains("  \(command) "), "no \(command) in:\n\(help.stdout)")
        }
        for benchmark in ["accuracy", "bench", "orientation-bench", "hinge-bench", "daemon-bench", "client-bench"] {
            #expect(!help.stdout.contains("  \(benchmark) "), "\(benchmark) in:\n\(help.stdout)")
        }
        let rotate = try await Emulation.run([Compositors.motiondRotate, "--help"])
        #expect(rotate.status == 0 && rotate.stdout.contains("USAGE: motiond-rotate [--socket") && !rotate.stdout.contains("SUBCOMMANDS"), "\(rotate.stdout)")
        let bench = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motiond-bench").path
        let benchHelp = try await Emulation.run([bench, "--help"])
        #expect(benchHelp.status == 0 && benchHelp.stdout.contains("  daemon-bench "), "\(benchHelp.stdout)")
    }

    @Test("the daemon says its version in the hello and in status; motionctl status shows it")
    func daemonVersion() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--no-config"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        let other = try await SocketClient(path: daemon.socket)
        let hello = try await other.next(type: "hello")
        #expect(hello?["daemon"] as? String == "motiond \(MotionVersion.current)", "\(String(describing: hello))")
        try await client.send(#"{"op":"status","id":1}"#)
        let status = try await client.reply(1)?["status"] as? [String: Any]
        #expect(status?["daemon"] as? String == "motiond \(MotionVersion.current)")
        let text = try await Emulation.run([MotionCtlTests.motionctl, "status", "--socket", daemon.socket])
        #expect(text.stdout.contains("daemon         \(daemon.socket) (motiond \(MotionVersion.current))"), "\(text.stdout)")
    }

    @Test("CHANGELOG.md's newest entry is this version")
    func changelog() throws {
        let text = try String(contentsOf: Emulation.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = text.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(MotionVersion.current) ") == true, "\(String(describing: newest))")
    }
}
