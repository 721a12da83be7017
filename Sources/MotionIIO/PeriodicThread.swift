import MotionSync

/// A dedicated thread that runs one closure on a fixed grid of boot-clock deadlines: one
/// thread wake-up per tick, and the tick does all its work (reading the sensors, handing the
/// readings to the pipeline with `queue.sync`, which runs them on this same thread) before
/// sleeping again. A Dispatch timer costs two wake-ups per tick (the manager thread, then a
/// worker), plus one per queue hop.
///
/// A ``TickThread`` of one job: the grid starts where the caller says (``start(at:_:)``), so
/// a source whose samples lie on a grid of their own ticks just after each point, not at a
/// random phase of it. The period can change while running (``setPeriod(_:)``), effective at
/// once: the next tick comes immediately when the new period is shorter than the time already
/// waited. Ticks missed (a suspend, a slow read) are not repeated: the next comes at the next
/// grid point.
final class PeriodicThread: Sendable {
    private let thread: TickThread
    /// The period, and the job once started.
    private let state: Lock<(period: Double, job: TickThread.Job?)>

    /// A thread named `name` that will tick every `period` seconds once started.
    init(name: String, period: Double) {
        thread = TickThread(name: name)
        state = Lock((period, nil))
    }

    /// Starts the thread running `tick` once per tick, the first at `first` (boot-clock
    /// seconds; at once when it has passed) and then every period from it; `tick` returning
    /// false ends the ticking (e.g. the device is gone). Throws when the system has no thread
    /// to give (nothing ticks, and ``stop()`` returns at once). Start and retime it from one
    /// thread or queue at a time.
    func start(at first: Double? = nil, _ tick: @escaping @Sendable () -> Bool) throws(SystemError) {
        let job = try thread.add(period: state.withLock { $0.period }, first: first, tick)
        state.withLock { $0.job = job }
    }

    /// The seconds between ticks from now on. A shorter period than the time already waited
    /// since the last tick makes the next one come at once.
    func setPeriod(_ period: Double) {
        let job = state.withLock { state in
            state.period = period
            return state.job
        }
        if let job { thread.setPeriod(period, of: job) }
    }

    /// Ends the thread and waits for it (its running tick finishes first); a thread never
    /// started just never starts. Never call it from the tick itself.
    func stop() {
        thread.stop()
    }
}
