import CTimerFD
import Glibc
import MotionSync

/// How a ticking thread sleeps until a boot-clock deadline, or until woken: in `poll` on a
/// pipe and a timer descriptor armed for the deadline on the boot clock itself (not a timeout
/// rounded up to the millisecond, which made every tick up to 1 ms late), so the kernel applies
/// its usual timer slack (at least 50 µs) and can coalesce the wake-up with others. Used by
/// ``TickThread``; ``sleep(until:)`` belongs to one thread, ``wake()``
/// may come from any.
final class DeadlineSleeper: Sendable {
    /// A pipe: a byte written to `wakeFDs[1]` ends a sleep early.
    private let wakeFDs: [Int32]
    /// The timer descriptor (CLOCK_BOOTTIME), or -1 and why it could not be made.
    private let timerFD: Int32
    private let timerError: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeFDs = fds
        timerFD = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC))
        timerError = timerFD < 0 ? errno : 0
    }

    deinit {
        for fd in wakeFDs + [timerFD] where fd >= 0 { close(fd) }
    }

    /// Throws when the timer descriptor could not be made (nothing can sleep on it).
    func check() throws(SystemError) {
        guard timerFD >= 0 else { throw SystemError(timerError, "timerfd_create (CLOCK_BOOTTIME)") }
    }

    /// Sleeps until `deadline` (boot-clock seconds; never early), without one when nil, or
    /// until ``wake()``; a wake-up that came while awake ends the next sleep at once.
    func sleep(until deadline: Double?) {
        // Arming also clears an expiry not read, so the descriptor itself is never read.
        var spec = itimerspec()
        if let deadline {
            let seconds = deadline.rounded(.down)
            spec.it_value = timespec(tv_sec: Int(seconds), tv_nsec: min(Int(((deadline - seconds) * 1e9).rounded(.up)), 999_999_999))
            // A zero it_value disarms: a deadline at the clock's very start is one nanosecond on.
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        _ = timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        var sleepers = [pollfd(fd: wakeFDs[0], events: Int16(POLLIN), revents: 0), pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)]
        if poll(&sleepers, 2, -1) > 0, sleepers[0].revents != 0 {
            var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            _ = withUnsafeMutableBytes(of: &drain) { read(wakeFDs[0], $0.baseAddress, $0.count) }
        }
    }

    /// Ends the owning thread's sleep (or its next one).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeFDs[1], &byte, 1)
    }
}
