import CCrashTrace

/// A crash leaves its trace in the log. On a fatal signal (SIGSEGV, SIGBUS, SIGILL — a Swift
/// runtime trap —, SIGFPE, SIGTRAP) the daemon writes to standard error, which systemd gives
/// the journal, one line naming the signal and the faulting address and then the crashing
/// thread's return addresses as `binary(+offset)`, and dies of the signal as before (systemd
/// still sees the crash and restarts it). The packaged binary has no symbols: `addr2line -f -e`
/// on the unstripped build of the same version turns the offsets into functions. Without it a
/// crash on a user's machine (or in the system tier) said only `status=11/SEGV`.
///
/// Only signals nobody else handles are taken (a sanitizer's handler, installed before `main`,
/// stays), and the handler runs on a stack of its own on the thread that installed it (the
/// main thread), so a stack overflow there is traced too.
public enum CrashTrace {
    /// Takes over the fatal signals that have no handler yet; returns how many it took.
    @discardableResult
    public static func install(program: String = "motiond") -> Int {
        Int(motiond_crash_trace_install(program))
    }
}
