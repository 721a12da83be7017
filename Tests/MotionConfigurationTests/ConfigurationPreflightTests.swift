import Foundation
import Testing
@testable import MotionConfiguration

/// The child that reads a configuration file first: its exit is no error (the daemon's own
/// reading follows), its death by a signal or its hanging is one, naming the file.
@Suite("ConfigurationPreflight")
struct ConfigurationPreflightTests {
    /// A stand-in for `motiond --parse-config`: a shell script with `body`, which first leaves
    /// a mark that it ran.
    static func child(_ body: String) throws -> (script: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("child.sh").path
        try "#!/bin/sh\n: > '\(directory.path)/ran'\n\(body)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return (script, directory)
    }

    /// `ConfigurationPreflight.check` with `script`, repeated until the script did run: a test
    /// that forks at the moment the script is written holds it open for writing in its child,
    /// and then `posix_spawn` fails with ETXTBSY — which `check` treats, as it should, like any
    /// failure to start a child (no verdict; the daemon reads the file itself).
    static func check(_ script: String, in directory: URL, timeout: Double = ConfigurationPreflight.timeout) throws(ConfigurationError) {
        let mark = directory.appendingPathComponent("ran").path
        for _ in 0..<100 {
            unlink(mark)
            do {
                try ConfigurationPreflight.check("/tmp/x.toml", executable: script, timeout: timeout)
            } catch where access(mark, F_OK) == 0 {
                throw error
            } catch {}
            if access(mark, F_OK) == 0 { return }
            usleep(20_000)
        }
        Issue.record("the stand-in child never ran")
    }

    @Test("a child that exits, whatever its status, lets the daemon read the file itself")
    func exited() throws {
        for body in ["exit 0", "echo 'motiond.toml:3: key: bad' >&2; exit 78"] {
            let (script, directory) = try Self.child(body)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Self.check(script, in: directory)
        }
    }

    @Test("a child killed by a signal: an error naming the file, the signal and the child's last words")
    func crashed() throws {
        let (script, directory) = try Self.child("echo 'toml.hpp:14994: parse_value(): Assertion failed.' >&2; kill -s ABRT $$")
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: ConfigurationError.self) { try Self.check(script, in: directory) }
        #expect(error.file == "/tmp/x.toml" && error.line == nil)
        #expect(error.message.hasPrefix("the TOML parser crashed on this file (Aborted): toml.hpp:14994: parse_value(): Assertion failed; "), "\(error)")
    }

    @Test("a child that does not finish is killed after the timeout, and that is an error too")
    func hung() throws {
        let (script, directory) = try Self.child("exec sleep 30")
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = Date()
        let error = try #require(throws: ConfigurationError.self) { try Self.check(script, in: directory, timeout: 0.5) }
        #expect(error.message == "the TOML parser did not finish reading this file within 0.5 s", "\(error)")
        #expect(Date().timeIntervalSince(started) < 10, "killed, not waited for")
    }
}
