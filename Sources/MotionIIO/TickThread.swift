import Dispatch
import MotionSync

/// One dedicated thread that runs several periodic jobs, each on its own grid of boot-clock
/// deadlines, and serves together the jobs that fall due close to one another: a job due within
/// a third of its period of the one that woke the thread runs in that wake-up, early, and its
/// grid moves there (so two jobs on one rest interval merge for good, and a 0.8-s light rides
/// on a 0.7-s accelerometer's wake-ups); and a job that woke the thread on its own grid moves
/// its next tick up to half a period earlier onto another's wake-up (so jobs of one period
/// half a period apart, which the first rule never brings together, share from their second
/// tick: a compass's three devices at rest). It is for slow work — devices read at the rest
/// rate or at a light's pace — where one thread per device would cost one wake-up per device
/// per interval (docs/PERFORMANCE.md, "The compass at rest"); the jobs run one after the
/// other, so a slow one delays the rest.
///
/// It sleeps like ``PeriodicThread``: in `poll` on a pipe and a timer descriptor armed for the
/// earliest deadline on the boot clock. Ticks a job missed (a suspend, a slow job) are skipped:
/// its next comes at its next grid point. The thread starts with the first job and ends at
/// ``stop()``; without jobs it sleeps without a deadline (no wake-up at all).
final class TickThread: Sendable {
    /// A job on the thread, for ``setPeriod(_:of:)`` and ``remove(_:)``.
    struct Job: Hashable, Sendable {
        fileprivate let id: Int
    }

    struct Entry {
        var period: Double
        var next: Double
        let tick: @Sendable () -> Bool
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 0
        /// The job whose tick runs now, and how many ``remove(_:)`` calls wait for it to end.
        var running: Int?
        var waiting = 0
        var started = false
        var stopping = false
    }

    /// How early, as a share of its period, a job may run with another's wake-up.
    static let earlyShare = 1.0 / 3
    /// Readers whose interval is this long or longer (seconds) read on the source's shared
    /// thread: the rest rate, a light's or a proximity sensor's pace, a batch for a late client.
    static let sharedFrom = 0.1

    private let state = Lock(State())
    private let sleeper: DeadlineSleeper
    /// Signalled once per waiting ``remove(_:)`` when the tick it waits for has ended.
    private let tickEnded = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let name: String

    init(name: String) {
        self.name = name
        sleeper = DeadlineSleeper()
    }

    /// Adds a job that runs `tick` every `period` seconds, the first at `first` (boot-clock
    /// seconds; now when nil); `tick` returning false removes it. Starts the thread with the
    /// first job; throws when the system has no thread to give (nothing was added).
    func add(period: Double, first: Double? = nil, _ tick: @escaping @Sendable () -> Bool) throws(SystemError) -> Job {
        try sleeper.check()
        let (job, start) = state.withLock { state -> (Job, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(period: period, next: first ?? BootClock.now(), tick: tick)
            defer { state.started = true }
            return (Job(id: id), !state.started)
        }
        if start {
            do {
                try BackgroundThread.start(name: name) { [self] in
                    run()
                    finished.signal()
                }
            } catch {
                state.withLock { state in
                    state.entries[job.id] = nil
                    state.started = false
                }
                throw error
            }
        } else {
            sleeper.wake()
        }
        return job
    }

    /// The seconds between a job's ticks from now on; a shorter period than the time already
    /// waited since its last tick makes the next come at once.
    func setPeriod(_ period: Double, of job: Job) {
        let changed = state.withLock { state -> Bool in
            guard var entry = state.entries[job.id], entry.period != period else { return false }
            entry.next = entry.next - entry.period + period
            entry.period = period
            state.entries[job.id] = entry
            return true
        }
        if changed { sleeper.wake() }
    }

    /// Removes a job; returns once its tick is not running and will not run again. Never call
    /// it from a tick (a tick ends its own job by returning false).
    func remove(_ job: Job) {
        let wait = state.withLock { state -> Bool in
            state.entries[job.id] = nil
            guard state.running == job.id else { return false }
            state.waiting += 1
            return true
        }
        if wait { tickEnded.wait() }
    }

    /// Ends the thread and waits for it (a running tick finishes first); its jobs never run
    /// again. Never call it from a tick.
    func stop() {
        let wasRunning = state.withLock { state in
            defer {
                state.stopping = true
                state.entries = [:]
            }
            return state.started && !state.stopping
        }
        guard wasRunning else { return }
        sleeper.wake()
        finished.wait()
    }

    private func run() {
        while true {
            let now = BootClock.now()
            // The jobs due now, and those due within their early share of it; else the
            // earliest deadline to sleep until.
            let (stopping, due, deadline) = state.withLock { state -> (Bool, [Int], Double?) in
                if state.stopping { return (true, [], nil) }
                let earliest = state.entries.values.map(\.next).min()
                guard let earliest, earliest <= now else { return (false, [], earliest) }
                let due = state.entries.filter { $0.value.next - now <= Self.earlyShare * $0.value.period }.keys.sorted()
                let others = state.entries.filter { !due.contains($0.key) }.values
                for id in due {
                    let entry = state.entries[id]!
                    let next = Self.next(after: now, entry: entry)
                    // A job that woke the thread on its own grid moves its next tick onto another's
                    // wake-up up to half a period before it (once: they then share for good).
                    // Without this, two jobs of one period half a period apart would each wake
                    // the thread every period, neither due within a third of the other's.
                    state.entries[id]!.next = entry.next <= now ? Self.shared(next, period: entry.period, among: others) ?? next : next
                }
                return (false, due, nil)
            }
            if stopping { return }
            if due.isEmpty {
                sleeper.sleep(until: deadline)
                continue
            }
            for id in due {
                // A job removed meanwhile (by another thread) is not run.
                guard let tick = state.withLock({ state -> (@Sendable () -> Bool)? in
                    guard let entry = state.entries[id] else { return nil }
                    state.running = id
                    return entry.tick
                }) else { continue }
                let goOn = tick()
                let waiting = state.withLock { state -> Int in
                    state.running = nil
                    if !goOn { state.entries[id] = nil }
                    defer { state.waiting = 0 }
                    return state.waiting
                }
                for _ in 0..<waiting { tickEnded.signal() }
            }
        }
    }

    /// The latest deadline of the `others`' grids within half a `period` before `next` (a job's
    /// next tick, to be moved there); nil when none is. Exactly half a period counts, to within
    /// ``sharingTolerance``: otherwise the rounding of the two sums would decide which of two
    /// jobs half a period apart moves, and the first to wake alone might not.
    static func shared(_ next: Double, period: Double, among others: some Collection<Entry>) -> Double? {
        others.compactMap { other -> Double? in
            guard other.next < next else { return nil }
            let point = other.next + ((next - other.next) / other.period).rounded(.up).advanced(by: -1) * other.period
            return point >= next - period / 2 - sharingTolerance ? point : nil
        }.max()
    }

    /// Seconds by which deadlines computed by different sums may differ and still be the same
    /// instant (a boot-clock time's rounding is nanoseconds even after months of uptime).
    static let sharingTolerance = 1e-6

    /// A served job's next deadline: the next point of its grid when it was due (missed ones
    /// skipped), or a period from now when it ran early (its grid moves to the wake-up it
    /// shares).
    private static func next(after now: Double, entry: Entry) -> Double {
        guard entry.next <= now else { return now + entry.period }
        return entry.next + max(1, ((now - entry.next) / entry.period).rounded(.up)) * entry.period
    }
}
