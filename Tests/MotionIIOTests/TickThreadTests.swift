import Glibc
import MotionSync
import Testing
@testable import MotionIIO
@testable import TestSupport

/// The shared thread of slow jobs: jobs due close together share a wake-up, each keeps its
/// period, a removal waits for the running tick, and a job that ends leaves the others ticking.
/// (One job's grid, retiming and stop: PeriodicThreadTests.)
@Suite("TickThread")
struct TickThreadTests {
    typealias Ticks = PeriodicThreadTests.Ticks

    @Test("a job due within a third of its period of another's wake-up runs with it, and stays merged: two jobs, one wake-up each time")
    func merges() throws {
        let thread = TickThread(name: "test.merge")
        defer { thread.stop() }
        let a = Ticks(), b = Ticks()
        let start = BootClock.now() + 0.02
        // b starts 0.03 s after a, on a 0.1-s period: 30 % early at a's next tick, so it runs
        // there and from then on with a.
        _ = try thread.add(period: 0.1, first: start) { a.record(); return true }
        _ = try thread.add(period: 0.1, first: start + 0.03) { b.record(); return true }
        usleep(650_000)
        let (ta, tb) = (a.times.withLock { $0 }, b.times.withLock { $0 })
        #expect(ta.count >= 5 && tb.count >= 5, "\(ta.count), \(tb.count)")
        // After b's first tick, each of b's ticks is at one of a's (the same wake-up: within
        // a millisecond), never on a wake-up of its own.
        for t in tb.dropFirst() {
            #expect(ta.contains { abs($0 - t) < 0.001 }, "b ticked alone at \(t - start): a at \(ta.map { $0 - start })")
        }
    }

    @Test("jobs of one period half a period apart (neither due within a third of the other's wake-up): the one that wakes alone moves its next tick onto the other's wake-up, and from then on they share every one; the other is never early")
    func halfApart() throws {
        let thread = TickThread(name: "test.apart")
        defer { thread.stop() }
        let a = Ticks(), b = Ticks()
        let start = BootClock.now() + 0.02
        // b is 0.05 s after a on a 0.1-s period: half a period, not within a third.
        _ = try thread.add(period: 0.1, first: start) { a.record(); return true }
        _ = try thread.add(period: 0.1, first: start + 0.05) { b.record(); return true }
        usleep(550_000)
        let (ta, tb) = (a.times.withLock { $0 }, b.times.withLock { $0 })
        #expect(ta.count >= 4 && tb.count >= 4, "\(ta.count), \(tb.count)")
        #expect(tb.enumerated().allSatisfy { k, t in t >= start + 0.05 + Double(k) * 0.1 - 1e-4 }, "b never early: \(tb.map { $0 - start })")
        // a woke alone at start; its next tick came with b's first, half a period early, and
        // every one after it too (the same wake-up: within a millisecond).
        for t in ta.dropFirst() {
            #expect(tb.contains { abs($0 - t) < 0.001 }, "a ticked alone at \(t - start): b at \(tb.map { $0 - start })")
        }
    }

    @Test("a grid point exactly half a period before a job's next tick is shared, whichever way the sums round")
    func halfExactly() {
        // At 1000 s, 1000.05 < 1000.1 - 0.05 in binary: without a tolerance the job would not move.
        for start in [1000.0, 1234.567, 12_345.678, 0.7] {
            let other = TickThread.Entry(period: 0.1, next: start + 0.05) { true }
            #expect(TickThread.shared(start + 0.1, period: 0.1, among: [other]) == start + 0.05, "\(start)")
        }
        // Further than half a period (by a millisecond): not moved.
        let far = TickThread.Entry(period: 0.1, next: 1000.049) { true }
        #expect(TickThread.shared(1000.1, period: 0.1, among: [far]) == nil)
    }

    @Test("remove waits for the job's running tick, and it never ticks again; the other job goes on")
    func removeWaits() throws {
        let thread = TickThread(name: "test.remove")
        defer { thread.stop() }
        let slow = Ticks(), other = Ticks()
        let inTick = Lock(false)
        let job = try thread.add(period: 0.01) {
            inTick.withLock { $0 = true }
            usleep(50_000)
            slow.record()
            inTick.withLock { $0 = false }
            return true
        }
        _ = try thread.add(period: 0.01) { other.record(); return true }
        usleep(30_000)
        thread.remove(job)
        #expect(!inTick.withLock { $0 }, "remove returned while its tick ran")
        let (count, before) = (slow.count, other.count)
        usleep(100_000)
        #expect(slow.count == count, "a tick after remove")
        #expect(other.count > before + 3, "the other job stopped too: \(before) → \(other.count)")
    }

    @Test("a tick that returns false ends its job only")
    func jobEnds() throws {
        let thread = TickThread(name: "test.ends")
        defer { thread.stop() }
        let ending = Ticks(), other = Ticks()
        _ = try thread.add(period: 0.01) { ending.record(); return ending.count < 3 }
        _ = try thread.add(period: 0.01) { other.record(); return true }
        usleep(200_000)
        #expect(ending.count == 3)
        #expect(other.count >= 10, "\(other.count)")
    }

    @Test("without jobs the thread does not wake; a job added then runs at once")
    func idle() throws {
        let thread = TickThread(name: "test.idle")
        defer { thread.stop() }
        let ticks = Ticks()
        let job = try thread.add(period: 0.01) { ticks.record(); return true }
        usleep(50_000)
        thread.remove(job)
        // The timer armed for the removed job's next tick may still fire once.
        usleep(50_000)
        let before = try #require(Self.switches(ofThreadNamed: "test.idle"))
        usleep(300_000)
        #expect(Self.switches(ofThreadNamed: "test.idle") == before, "the idle thread woke")
        let later = Ticks()
        let added = BootClock.now()
        _ = try thread.add(period: 5) { later.record(); return true }
        usleep(50_000)
        #expect(later.times.withLock { $0 }.first.map { $0 - added < 0.03 } == true, "the new job's first tick at once")
    }

    /// The wake-ups of this process's thread named `name` so far.
    static func switches(ofThreadNamed name: String) -> Int? {
        ThreadSwitches.of(getpid()).values.first { $0.name == name }?.count
    }
}
