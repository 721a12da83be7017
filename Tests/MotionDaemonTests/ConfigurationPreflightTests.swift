import Foundation
import Testing
@testable import MotionDaemon

/// The child that reads a configuration file first: its exit is no error (the daemon's own
/// reading follows), its death by a signal or its hanging is one, naming the file.
@Suite("ConfigurationPreflight")
struct ConfigurationPreflightTests {
    /// A stand-in for `motiond --parse-config`: a shell script with `body`.
    static func child(_ body: String) throws -> (script: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("child.sh").path
        try "#!/bin/sh\n\(body)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return (script, directory)
    }

    @Test("a child that exits, whatever its status, lets the daemon read the file itself")
    func exited() throws {
        for body in ["exit 0", "echo 'motiond.toml:3: key: bad' >&2; exit 78"] {
            let (script, directory) = try Self.child(body)
            defer { try? FileManager.default.removeItem(at: directory) }
            try ConfigurationPreflight.check("/etc/motiond/motiond.toml", executable: script)
        }
    }

    @Test("a child killed by a signal: an error naming the file, the signal and the child's last words")
    func crashed() throws {
        let (script, directory) = try Self.child("echo 'toml.hpp:14994: parse_value(): Assertion failed.' >&2; kill -s ABRT $$")
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationPreflight.check("/tmp/x.toml", executable: script) }
        #expect(error.file == "/tmp/x.toml" && error.line == nil)
        #expect(error.message.hasPrefix("the TOML parser crashed on this file (Aborted): toml.hpp:14994: parse_value(): Assertion failed; "), "\(error)")
    }

    @Test("a child that does not finish is killed after the timeout, and that is an error too")
    func hung() throws {
        let (script, directory) = try Self.child("exec sleep 30")
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = Date()
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationPreflight.check("/tmp/x.toml", executable: script, timeout: 0.5) }
        #expect(error.message == "the TOML parser did not finish reading this file within 0.5 s", "\(error)")
        #expect(Date().timeIntervalSince(started) < 10, "killed, not waited for")
    }
}
