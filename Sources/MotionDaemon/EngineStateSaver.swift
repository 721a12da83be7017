import Dispatch
import MotionCore
import MotionIIO
import MotionSync

/// Keeps the engine's learned state (gyroscope bias, magnetometer calibration) on disk without
/// holding up the samples. The pipeline offers it with the samples; at most every
/// ``offerInterval`` seconds an offer is taken, and the ``EngineStateStore`` writes it (when it
/// changed and its own minimum interval has passed: the write does fsync, rename and a
/// directory fsync) on a queue of its own, `motiond.state`. So even a crash loses little
/// calibration, and the reading thread never waits on the disk. At exit ``save(_:)`` writes the
/// final state after every offer before it. A value: the pipeline keeps it on its queue, so the
/// per-burst check is a comparison, no lock.
struct EngineStateSaver: Sendable {
    private let store: EngineStateStore
    private let queue: DispatchQueue
    /// Boot-clock seconds of the last offer taken.
    private var lastOffer: Double

    /// Seconds between offers taken: the store's minimum interval, at most 5 s.
    var offerInterval: Double { min(store.minimumInterval, 5) }

    /// `now`: the boot clock's reading at start (the first offer is taken an interval later);
    /// `queue`: where the writes run (a test may hold it).
    init(store: EngineStateStore, now: Double = BootClock.now(), queue: DispatchQueue = DispatchQueue(label: "motiond.state")) {
        self.store = store
        self.queue = queue
        lastOffer = now
    }

    /// Offers the state at boot-clock time `now`; `state` is evaluated only when the offer is
    /// taken, and written off the caller's thread.
    mutating func offer(now: Double, _ state: () -> MotionEngine.PersistentState) {
        guard now - lastOffer >= offerInterval else { return }
        lastOffer = now
        let snapshot = state()
        queue.async { [store] in store.saveIfChanged(snapshot, now: now) }
    }

    /// Writes `state` now, after every offer taken before, and waits until it is written.
    func save(_ state: MotionEngine.PersistentState) {
        queue.assertNotOnQueue()
        queue.sync { store.save(state) }
    }
}
