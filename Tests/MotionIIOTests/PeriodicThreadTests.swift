import Glibc
import MotionSync
import Testing
@testable import MotionIIO

/// The readers' ticking thread: a tick per period on a grid, a new period effective at once,
/// and a stop that waits for the running tick.
@Suite("PeriodicThread")
struct PeriodicThreadTests {
    /// Tick times (boot clock) recorded by a thread's ticks.
    final class Ticks: Sendable {
        let times = Lock<[Double]>([])
        func record() { times.withLock { $0.append(BootClock.now()) } }
        var count: Int { times.withLock { $0.count } }
    }

    @Test("ticks come once per period, the first at once, on a grid that does not drift")
    func grid() throws {
        let ticks = Ticks()
        let thread = PeriodicThread(name: "test.grid", period: 0.02)
        let started = BootClock.now()
        try thread.start { ticks.record(); return true }
        usleep(500_000)
        thread.stop()
        let times = ticks.times.withLock { $0 }
        #expect(times.first.map { $0 - started < 0.05 } == true, "the first tick at once")
        // 0.5 s at 20 ms: 26 ticks on a grid; a loaded machine may lose a few, never gain.
        #expect((20...26).contains(times.count), "\(times.count) ticks")
        // Never early: tick k at or after its grid point (a late tick is followed by one on
        // the grid again, or, more than a period late, by one a period after it). The grid
        // starts at `start`, not at the first tick, which a loaded machine may run late.
        #expect(times.enumerated().allSatisfy { k, t in t - started >= Double(k) * 0.02 - 0.001 }, "never early: \(times.map { $0 - started })")
    }

    @Test("started at a time of the caller's: the first tick waits for it and the grid runs from it, never early (a source's own sample grid)")
    func startAt() throws {
        let ticks = Ticks()
        let thread = PeriodicThread(name: "test.at", period: 0.02)
        // A grid point 0.3 ms past a whole millisecond: a timeout rounded to milliseconds would
        // put every tick up to 1 ms after it, the timer descriptor just after it.
        let first = (BootClock.now() * 1000).rounded(.up) / 1000 + 0.0503
        try thread.start(at: first) { ticks.record(); return true }
        usleep(300_000)
        thread.stop()
        let times = ticks.times.withLock { $0 }
        #expect(times.first.map { $0 >= first } == true, "the first tick not before its time: \(times.map { $0 - first })")
        #expect((8...13).contains(times.count), "\(times.count) ticks")
        #expect(times.enumerated().allSatisfy { k, t in t >= first + Double(k) * 0.02 }, "never early: \(times.map { $0 - first })")
    }

    @Test("a shorter period takes effect at once: the next tick does not wait out the long one")
    func shorterPeriod() throws {
        let ticks = Ticks()
        let thread = PeriodicThread(name: "test.retime", period: 5)
        try thread.start { ticks.record(); return true }
        usleep(100_000)
        #expect(ticks.count == 1, "one tick, the next 5 s away")
        let changed = BootClock.now()
        thread.setPeriod(0.02)
        usleep(200_000)
        thread.stop()
        let times = ticks.times.withLock { $0 }
        #expect(times.count >= 5, "\(times.count) ticks")
        #expect(times.count > 1 && times[1] - changed < 0.05, "the first tick at the new period comes at once")
    }

    @Test("a tick that returns false ends the thread; stop after that returns at once")
    func tickEnds() throws {
        let ticks = Ticks()
        let thread = PeriodicThread(name: "test.end", period: 0.01)
        try thread.start { ticks.record(); return ticks.count < 3 }
        usleep(200_000)
        #expect(ticks.count == 3)
        thread.stop()
    }

    @Test("stop waits for the running tick and no tick follows it")
    func stopWaits() throws {
        let ticks = Ticks()
        let inTick = Lock(false)
        let thread = PeriodicThread(name: "test.stop", period: 0.01)
        try thread.start {
            inTick.withLock { $0 = true }
            usleep(50_000)
            ticks.record()
            inTick.withLock { $0 = false }
            return true
        }
        usleep(30_000)
        thread.stop()
        #expect(!inTick.withLock { $0 }, "stop returned while a tick ran")
        let count = ticks.count
        usleep(100_000)
        #expect(ticks.count == count, "a tick after stop")
    }

    @Test("stop on a thread never started returns at once")
    func stopUnstarted() {
        PeriodicThread(name: "test.unstarted", period: 0.01).stop()
    }
}
