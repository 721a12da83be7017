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

    /// Seconds to add to a time on `clock` to get boot time now (0 for boot time itself).
    static func offset(from clock: clockid_t) -> Double {
        clock == CLOCK_BOOTTIME ? 0 : now() - seconds(clock)
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
