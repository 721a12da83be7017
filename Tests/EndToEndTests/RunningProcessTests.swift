import Foundation
import Glibc
import Testing
@testable import TestSupport

/// The test support's child processes never hang the test run: a child that ignores SIGTERM
/// fails the test that stops it and is killed, and one released while running is ended.
@Suite("RunningProcess: children never outlive their tests")
struct RunningProcessTests {
    @Test("stop(): a child ignoring SIGTERM is a recorded failure, killed after the timeout")
    func stopKillsAHungChild() async throws {
        let process = try RunningProcess(["sh", "-c", "trap '' TERM; echo ready >&2; while :; do sleep 1; done"])
        #expect(await process.wait(timeout: 10) { $0.stderr.contains("ready") })
        let started = Date()
        var status: Int32 = 0
        withKnownIssue("the child ignores SIGTERM") {
            status = process.stop(timeout: 0.5)
        } matching: { issue in
            issue.description.contains("did not exit within 0.5 s of SIGTERM") && issue.description.contains("ready")
        }
        #expect(status == SIGKILL)
        #expect(!process.isRunning)
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("a child released while it runs is ended, even when it ignores SIGTERM")
    func releasedChildEnds() async throws {
        var process: RunningProcess? = try RunningProcess(["sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
        let pid = try #require(process?.pid)
        process = nil
        let deadline = Date().addingTimeInterval(15)
        // Gone once reaped: no /proc entry, or (pid reused) not a child of this process.
        func ours() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 1 && Int32(fields[1]) == getpid()
        }
        while ours() && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!ours(), "child \(pid) still runs 15 s after its RunningProcess was released")
    }
}
