import Glibc

/// The limit on open files (RLIMIT_NOFILE). The daemon serves a client per descriptor and the
/// daemon benchmark opens one per simulated client; the usual soft limit of 1024 is too low
/// for a thousand.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit; returns the limit in force.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 { _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
        }
        return Int(min(limit.rlim_cur, rlim_t(Int.max)))
    }
}
