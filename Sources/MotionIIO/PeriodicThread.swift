import Dispatch
import Glibc
import MotionSync

/// A dedicated thread that runs a closure on a fixed grid of boot-clock deadlines: one thread
/// wake-up per tick, and the tick does all its work (reading the sensors, handing the readings
/// to the pipeline with `queue.sync`, which runs them on this same thread) before sleeping
/// again. A Dispatch timer costs two wake-ups per tick (the manager thread, then a worker),
/// plus one per queue hop.
///
/// It sleeps in `poll` on a pipe with a timeout, so the kernel applies its usual timer
/// slack (0.1 % of the sleep, at least 50 µs) and can coalesce the wake-up with others. The
/// period can change while running (``setPeriod(_:)``), effective at once: the next tick comes
/// immediately when the new period is shorter than the time already waited. A tick that comes
/// late (a suspend, a slow read) is not repeated: the grid restarts from it.
final class PeriodicThread: Sendable {
    private struct State {
        var period: Double
        var next: Double
        var started = false
        var stopping = false
    }
    private let state: Lock<State>
    /// A pipe: a byte written to `wakeFDs[1]` wakes the thread early (a new period, or stop).
    private let wakeFDs: [Int32]
    private let finished = DispatchSemaphore(value: 0)
    private let name: String

    /// A thread named `name` that will tick every `period` seconds once started.
    init(name: String, period: Double) {
        self.name = name
        state = Lock(State(period: period, next: 0))
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeFDs = fds
    }

    deinit {
        for fd in wakeFDs where fd >= 0 { close(fd) }
    }

    /// Starts the thread running `tick` once per tick, the first at once; `tick` returning false
    /// ends the thread (e.g. the device is gone). Throws when the system has no thread to give
    /// (nothing ticks, and ``stop()`` returns at once).
    func start(_ tick: @escaping @Sendable () -> Bool) throws(SystemError) {
        state.withLock { state in
            state.next = BootClock.now()
            state.started = true
        }
        do {
            try BackgroundThread.start(name: name) { [self] in
                run(tick)
                finished.signal()
            }
        } catch {
            state.withLock { $0.started = false }
            throw error
        }
    }

    /// The seconds between ticks from now on. A shorter period than the time already waited
    /// since the last tick makes the next one come at once.
    func setPeriod(_ period: Double) {
        state.withLock { state in
            guard state.period != period else { return }
            state.next = state.next - state.period + period
            state.period = period
        }
        wake()
    }

    /// Ends the thread and waits for it (its running tick finishes first); a thread never
    /// started just never starts. Never call it from the tick itself.
    func stop() {
        let wasRunning = state.withLock { state in
            defer { state.stopping = true }
            return state.started && !state.stopping
        }
        guard wasRunning else { return }
        wake()
        finished.wait()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeFDs[1], &byte, 1)
    }

    private func run(_ tick: () -> Bool) {
        var sleeper = pollfd(fd: wakeFDs[0], events: Int16(POLLIN), revents: 0)
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (stopping, next) = state.withLock { ($0.stopping, $0.next) }
            if stopping { return }
            let now = BootClock.now()
            if now < next {
                // Milliseconds, rounded up: never early (a tick must not come before its time).
                let milliseconds = Int32(min((next - now) * 1000, 3_600_000).rounded(.up))
                if poll(&sleeper, 1, milliseconds) > 0 {
                    _ = drain.withUnsafeMutableBytes { read(wakeFDs[0], $0.baseAddress, $0.count) }
                }
                continue
            }
            state.withLock { state in
                // On the grid, unless the tick is more than a period late: then from now.
                state.next = now - state.next > state.period ? now + state.period : state.next + state.period
            }
            if !tick() {
                // Nothing can stop it twice now; `stop` from elsewhere still returns.
                state.withLock { $0.stopping = true }
                return
            }
        }
    }
}
