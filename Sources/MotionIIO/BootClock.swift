import Glibc

/// CLOCK_BOOTTIME and conversions into it: every motiond timestamp is seconds since boot.
public enum BootClock {
    /// Seconds since boot, counting suspend (CLOCK_BOOTTIME).
    public static func now() -> Double { seconds(CLOCK_BOOTTIME) }

    /// Seconds the system has spent suspended since boot (CLOCK_BOOTTIME − CLOCK_MONOTONIC):
    /// it grows only across a system sleep.
    public static func asleep() -> Double { now() - seconds(CLOCK_MONOTONIC) }

    /// The Linux clock behind an IIO `current_timestamp_clock` value.
    static func clockID(named name: String) -> clockid_t? {
        switch name {
        case "realtime": return CLOCK_REALTIME
        case "monotonic": return CLOCK_MONOTONIC
        case "monotonic_raw": return CLOCK_MONOTONIC_RAW
        case "realtime_coarse": return CLOCK_REALTIME_COARSE
        case "monotonic_coarse": return CLOCK_MONOTONIC_COARSE
        case "boottime": return CLOCK_BOOTTIME
        case "tai": return CLOCK_TAI
        default: return nil
        }
    }

    /// Seconds to add to a time on clock `name` to get boot time (0 for `boottime`); `nil` for
    /// an unknown clock.
    static func offset(fromClockNamed name: String) -> Double? {
        guard let id = clockID(named: name) else { return nil }
        if id == CLOCK_BOOTTIME { return 0 }
        return now() - seconds(id)
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
