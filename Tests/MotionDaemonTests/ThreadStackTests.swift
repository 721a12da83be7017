import Foundation
import Glibc
import Synchronization
import Testing
@testable import MotionDaemon

/// Giving back a thread's stack below its current frame, on a thread of the test's own.
@Suite("ThreadStack")
struct ThreadStackTests {
    /// Touches `depth` KiB of stack below the caller, one KiB per call; returns a sum that
    /// depends on every frame (so no call is optimised away).
    @inline(never)
    static func descend(_ depth: Int) -> Int {
        var block = (0..<128).map { $0 &* depth }
        withUnsafeMutablePointer(to: &block) { _ in }
        var local: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (depth, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &local) { bytes in
            bytes.storeBytes(of: depth, toByteOffset: 120, as: Int.self)
            let below = depth > 0 ? descend(depth - 1) : 0
            return below &+ bytes.load(fromByteOffset: 120, as: Int.self) &+ block.count
        }
    }

    /// What the test's thread saw.
    struct Seen: Sendable {
        var before = 0, after = 0, again = 0, released = 0, sums: [Int] = []
    }

    final class Outcome: Sendable {
        let seen = Mutex<Seen?>(nil)
    }

    @Test("the pages a deep call touched leave the resident set; the thread runs on, as deep again")
    func release() throws {
        let result = Outcome()
        let thread = Thread {
            let first = Self.descend(1024)
            var marker = 0
            let here = withUnsafeMutablePointer(to: &marker) { UnsafeRawPointer($0) }
            let before = (try? CodePagesTests.resident(at: here)) ?? -1
            let released = ThreadStack.releaseBelowCurrentFrame()
            let after = (try? CodePagesTests.resident(at: here)) ?? -1
            let second = Self.descend(1024)
            let again = (try? CodePagesTests.resident(at: here)) ?? -1
            result.seen.withLock { $0 = Seen(before: before, after: after, again: again, released: released, sums: [first, second]) }
        }
        thread.stackSize = 8 << 20
        thread.start()
        let deadline = Date().addingTimeInterval(10)
        while result.seen.withLock({ $0 == nil }) && Date() < deadline { usleep(10_000) }
        let seen = try #require(result.seen.withLock { $0 })
        #expect(seen.released >= 64 << 10, "\(seen.released) bytes released")
        #expect(seen.before - seen.after >= 64, "the thread's stack: \(seen.before) kB resident before, \(seen.after) kB after")
        #expect(seen.again > seen.after, "the next deep call faults fresh pages: \(seen.again) kB")
        #expect(seen.sums[0] == seen.sums[1], "what the frames hold is the same after as before")
    }
}
