import Foundation
import Glibc
import Testing
@testable import TestSupport

/// A crash of the daemon leaves its backtrace on standard error, the journal under systemd
/// (``CrashTrace``): the system tier once saw only `status=11/SEGV`.
@Suite("CrashTrace: a fatal signal's backtrace on standard error")
struct CrashTraceTests {
    @Test("SIGSEGV: the signal and its address, then the crashing thread's frames as binary(+offset); the daemon still dies of it")
    func segmentationFault() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var environment = RunningProcess.plainEnvironment
        // The Swift runtime's own backtracer takes fatal signals before `main` where it finds its
        // helper beside a dynamically linked runtime (a debug build); the packaged daemon is
        // linked statically and has none.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let process = try RunningProcess([Emulation.motiond, "--no-config", "--source", "sim:",
                                          "--socket", dir.appendingPathComponent("motiond.sock").path,
                                          "--state-file", dir.appendingPathComponent("state.json").path], environment: environment)
        #expect(await process.wait(timeout: 30) { $0.stderr.contains("listening on") })
        kill(process.pid, SIGSEGV)
        #expect(await process.wait(timeout: 30) { $0.status != -1 })
        #expect(process.status == SIGSEGV, "exit status \(process.status): dies of the signal, as without the trace")
        let lines = process.stderr.split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.contains("motiond: fatal signal 11 (SEGV) at address") }, "\(process.stderr.suffix(2000))")
        let frames = lines[(header + 1)...].filter { $0.contains("(") && $0.contains("+0x") && $0.contains(")[0x") }
        #expect(frames.contains { $0.contains("motiond(") }, "the daemon's own frames: \(frames)")
        #expect(frames.count >= 3, "\(lines[header...])")
    }
}
