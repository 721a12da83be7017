import Glibc
import MotionSync
import MotionToolSupport

/// The helper's main loop: feeds a ``RotationController`` from its inbox on the calling thread
/// until a replay's end, with SIGUSR1 turned into ``RotationInput/toggleHold``. Live, it also
/// wakes the controller at each debounce deadline (the lock file's comings and goings arrive as
/// ticks from ``LockFileWatch``); a replay runs on its events' clock alone. Between inputs and
/// deadlines every thread of the helper sleeps.
enum RotationLoop {
    /// How the loop gets its sense of time.
    enum Timing {
        case live(ElapsedClock)
        case replay
    }

    /// Blocks SIGUSR1 in the calling thread, and so in every thread it starts afterwards (they
    /// inherit the mask), and hands each SIGUSR1 to `inbox` from a thread that waits for it
    /// (sigwait). Call it first, before any thread that must not take the signal exists.
    static func forwardHoldSignal(to inbox: RotationInbox) throws(SystemError) {
        var hold = sigset_t()
        sigemptyset(&hold)
        sigaddset(&hold, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &hold, nil)
        try BackgroundThread.start(name: "hold-signal") { [hold] in
            var hold = hold
            while true {
                var signal: Int32 = 0
                if sigwait(&hold, &signal) == 0 { inbox.post(.toggleHold) }
            }
        }
    }

    static func run(_ controller: inout RotationController, inbox: RotationInbox, timing: Timing, source: String) {
        Log.info("following the device orientation from \(source); SIGUSR1 holds rotation and releases it")
        while true {
            let input: RotationInput
            if case .live(let clock) = timing, let deadline = controller.deadline {
                guard let arrived = inbox.next(within: deadline - clock.now) else {
                    controller.handle(.tick(at: max(deadline, clock.now)))
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
