import Glibc
import MotionToolSupport

/// The helper's main loop: feeds a ``RotationController`` from its inbox on the calling thread
/// until a replay's end, with SIGUSR1 turned into ``RotationInput/toggleHold``. Live, it also
/// wakes the controller at each debounce deadline and, with a lock file, every second to notice
/// the file come and go; a replay runs on its events' clock alone. Between inputs and deadlines
/// every thread of the helper sleeps.
enum RotationLoop {
    /// How the loop gets its sense of time.
    enum Timing {
        case live(ElapsedClock, pollLockFile: Bool)
        case replay
    }

    /// How often the lock file is looked at when nothing else happens (seconds).
    static let lockFilePoll = 1.0

    /// Blocks SIGUSR1 in the calling thread, and so in every thread it starts afterwards (they
    /// inherit the mask), and hands each SIGUSR1 to `inbox` from a thread that waits for it
    /// (sigwait). Call it first, before any thread that must not take the signal exists.
    static func forwardHoldSignal(to inbox: RotationInbox) throws(BackgroundThread.Unavailable) {
        var hold = sigset_t()
        sigemptyset(&hold)
        sigaddset(&hold, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &hold, nil)
        try BackgroundThread.start {
            var hold = sigset_t()
            sigemptyset(&hold)
            sigaddset(&hold, SIGUSR1)
            while true {
                var signal: Int32 = 0
                if sigwait(&hold, &signal) == 0 { inbox.post(.toggleHold) }
            }
        }
    }

    static func run(_ controller: inout RotationController, inbox: RotationInbox, timing: Timing, source: String) {
        Log.info("following the device orientation from \(source); SIGUSR1 holds rotation and releases it")
        var clock: ElapsedClock?
        var nextPoll: Double?
        if case .live(let live, let pollLockFile) = timing {
            clock = live
            if pollLockFile { nextPoll = live.now + lockFilePoll }
        }
        while true {
            let input: RotationInput
            // Live, the first of the debounce deadline and the lock file's poll wakes the loop.
            if let clock, let wake = [controller.deadline, nextPoll].compactMap({ $0 }).min() {
                guard let arrived = inbox.next(within: wake - clock.now) else {
                    let now = max(wake, clock.now)
                    if wake == nextPoll { nextPoll = now + lockFilePoll }
                    controller.handle(.tick(at: now))
                    continue
                }
                input = arrived
            } else {
                input = inbox.next()
            }
            controller.handle(input)
            if case .end = input { return }
        }
    }
}
