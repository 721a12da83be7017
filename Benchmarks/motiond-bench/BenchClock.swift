import Glibc

/// The daemon benchmark's clocks, seconds.
enum BenchClock {
    static func monotonic() -> Double { now(CLOCK_MONOTONIC) }
    /// Seconds since boot, counting suspend: the clock of every motiond timestamp.
    static func boot() -> Double { now(CLOCK_BOOTTIME) }

    private static func now(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
