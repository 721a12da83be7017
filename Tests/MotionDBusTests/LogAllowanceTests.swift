import Testing
@testable import MotionDBus

/// A client's lines in the log: a few per interval, then one saying the rest are left out,
/// and how many were left out told later.
@Suite("LogAllowance")
struct LogAllowanceTests {
    @Test("lines beyond the allowance are left out after one line saying so; the next interval's first line tells how many")
    func perInterval() {
        var allowance = LogAllowance()
        let verdicts = (0..<(LogAllowance.lines + 5)).map { allowance.admit(":1.9", at: 100 + Double($0) * 0.01) }
        #expect(verdicts == Array(repeating: .log(leftOut: 0), count: LogAllowance.lines) + [.quieten] + Array(repeating: .leaveOut, count: 4))
        #expect(allowance.admit(":1.2", at: 101) == .log(leftOut: 0), "another client has its own allowance")
        #expect(allowance.admit(":1.9", at: 100 + LogAllowance.interval) == .log(leftOut: 5))
        #expect(allowance.admit(":1.9", at: 100 + LogAllowance.interval + 1) == .log(leftOut: 0))
    }

    @Test("a client that leaves is forgotten, with the count of its lines left out and not yet told")
    func forget() {
        var allowance = LogAllowance()
        for time in 0..<(LogAllowance.lines + 3) { _ = allowance.admit(":1.9", at: Double(time) / 100) }
        #expect(allowance.forget(":1.9") == 3)
        #expect(allowance.forget(":1.9") == 0)
        #expect(allowance.admit(":1.9", at: 1) == .log(leftOut: 0))
    }
}
