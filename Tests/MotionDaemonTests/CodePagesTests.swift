import Foundation
import Testing
@testable import MotionDaemon

/// Giving back resident code and read-only data, in this very process.
@Suite("CodePages")
struct CodePagesTests {
    /// `RssFile` of /proc/self/status, kB.
    static func residentFilePages() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test("the file pages of code and constants leave the process's resident set, and the process runs on")
    func release() throws {
        let before = try Self.residentFilePages()
        let advised = CodePages.release()
        let after = try Self.residentFilePages()
        #expect(advised > 1 << 20, "\(advised) bytes of mappings advised")
        #expect(after < before, "RssFile \(before) kB before, \(after) kB after")
        // The code this test runs next is faulted back in: nothing was lost.
        #expect((1...100).reduce(0, +) == 5050)
    }
}
