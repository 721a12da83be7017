import Dispatch
import MotionCore
import MotionSync

/// `sim:` — the deterministic ``SimulatedIMU`` (accelerometer, gyroscope, magnetometer, light,
/// proximity: a slate, no base accelerometer) played
/// in real time: each requested kind has its own period and its samples lie on an even grid
/// from the boot time at start, like a hardware clock. A ``PeriodicThread`` per distinct
/// period and batch interval (``SourceRequest/batchInterval(_:)``) wakes once per interval, just
/// as a grid point falls due (as a data-ready interrupt would), and delivers every grid point
/// that is due as one burst, so a late wake-up loses nothing and no
/// timestamp is ever in the future (an interval longer than the period makes it deliver in
/// batches, like a hardware FIFO). A
/// period change continues the grid from the last sample. The script loops forever.
public final class SimulatedSource: MotionSource {
    public let uri = "sim:"
    /// What the simulated device has: every kind but a convertible's base sensors.
    public static let kinds = SensorKind.allCases.filter { $0 != .baseAccelerometer && $0 != .baseGyroscope }
    /// Serializes start, update and stop (they run on the caller's thread).
    private let control = Lock(())
    /// Shared with the ticking threads.
    private let state: Lock<State>

    private struct State {
        var imu: SimulatedIMU
        var delivery: (queue: DispatchQueue, handler: SourceHandler)?
        /// The kinds being read, as last announced.
        var readingKinds = Set<SensorKind>()
        /// Script time (seconds since start) of the last sample emitted per kind.
        var last: [SensorKind: Double] = [:]
        var startTime = 0.0
    }

    /// One ticking thread and the kinds it serves at one period and batch interval.
    private struct Group: Hashable {
        var period: Double
        var interval: Double
    }
    private let threads = Lock<[Group: (kinds: Set<SensorKind>, thread: PeriodicThread)]>([:])

    public init(imu: SimulatedIMU = SimulatedIMU()) {
        state = Lock(State(imu: imu))
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        control.withLock { _ in
            stopThreads()
            state.withLock { state in
                state.delivery = (target, handler)
                state.startTime = BootClock.now()
                state.last = [:]
                state.readingKinds = []
            }
            // Every simulated sensor exists; requested ones are announced as read by `apply`.
            let idle = Self.kinds.filter { request.periods[$0] == nil }.map { SourceEvent.availability($0, Self.idle) }
            target.sync { handler(idle + [.availability(.baseAccelerometer, Self.noBase), .availability(.baseGyroscope, Self.noBase)]) }
            apply(request)
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        control.withLock { _ in apply(request) }
    }

    public func stop() {
        control.withLock { _ in
            stopThreads()
            state.withLock { $0.delivery = nil }
        }
    }

    private func stopThreads() {
        let running = threads.withLock { threads in
            defer { threads = [:] }
            return threads.values.map(\.thread)
        }
        for thread in running { thread.stop() }
    }

    /// A simulated sensor nobody reads: present, not running.
    private static let idle = SensorAvailability(isAvailable: true, reason: "simulated IMU, idle")
    private static let noBase = SensorAvailability(isAvailable: false, reason: "the simulated IMU is a slate: no base")

    /// At most this many seconds of missed samples are caught up (a suspend stops nothing on
    /// the boot clock): older grid points are skipped.
    static let maximumCatchUp = 1.0

    private func apply(_ request: SourceRequest) {
        guard let delivery = state.withLock({ $0.delivery }) else { return }
        // A kind the simulated device lacks (a base sensor) is never read nor announced: it
        // stays unavailable, as a real source keeps a sensor it does not have.
        let requested = Set(request.periods.keys).intersection(Self.kinds)
        // One thread per distinct period and interval serves every kind at them, so three
        // sensors at 100 Hz cost one wake-up per tick (and reach the pipeline as one burst).
        let groups = Dictionary(grouping: requested) { kind in
            Group(period: request.periods[kind]!, interval: request.batchInterval(kind)!)
        }.mapValues(Set.init)
        let stale = threads.withLock { threads in
            let stale = threads.filter { groups[$0.key] != $0.value.kinds }
            for group in stale.keys { threads[group] = nil }
            return stale.values.map(\.thread)
        }
        for thread in stale { thread.stop() }
        let stopped = state.withLock { state in
            SensorKind.allCases.filter { !requested.contains($0) && state.readingKinds.contains($0) }
        }
        if !stopped.isEmpty { delivery.queue.sync { delivery.handler(stopped.map { .availability($0, Self.idle) }) } }
        let running = threads.withLock { Set($0.keys) }
        for (group, kinds) in groups.sorted(by: { ($0.key.period, $0.key.interval) < ($1.key.period, $1.key.interval) })
        where !running.contains(group) {
            let order = kinds.sorted { $0.rawValue < $1.rawValue }
            let (announce, first) = state.withLock { state in
                for kind in kinds where !state.readingKinds.contains(kind) || state.last[kind] == nil {
                    // A kind being read continues its grid from its last sample (a batch due
                    // but not yet delivered by the thread replaced comes with the first tick);
                    // a new one starts at the latest point of the device's grid, so the kinds
                    // of one period share one phase (and one tick) however they were started.
                    let elapsed = BootClock.now() - state.startTime
                    state.last[kind] = (elapsed / group.period).rounded(.down) * group.period - group.period
                }
                // Ticks just as the next batch is complete, as a device's data-ready interrupt
                // comes: a sample is not held for a random part of a period.
                let first = state.startTime + kinds.map { state.last[$0]! }.min()! + group.interval
                return (order.filter { !state.readingKinds.contains($0) }, first)
            }
            if !announce.isEmpty {
                let reading = SensorAvailability(isAvailable: true, reason: "simulated IMU", mode: .polling)
                delivery.queue.sync { delivery.handler(announce.map { .availability($0, reading) }) }
            }
            let thread = PeriodicThread(name: "sim.\(Int(group.period * 1000))ms", period: group.interval)
            threads.withLock { $0[group] = (kinds, thread) }
            do {
                try thread.start(at: first) { [unowned self] in
                    let due = due(order, period: group.period)
                    if !due.isEmpty { delivery.queue.sync { delivery.handler(due.map { .sample($0) }) } }
                    return true
                }
            } catch {
                threads.withLock { $0[group] = nil }
                let failed = SensorAvailability(isAvailable: false, reason: "simulated IMU: no thread to read it on (\(error))")
                delivery.queue.sync { delivery.handler(order.map { .availability($0, failed) }) }
            }
        }
        state.withLock { $0.readingKinds = requested }
    }

    /// Every grid point of `kinds` due by now, interleaved in time as scans of one device
    /// arrive.
    private func due(_ kinds: [SensorKind], period: Double) -> [Sample] {
        state.withLock { state in
            let now = BootClock.now() - state.startTime
            var samples: [Sample] = []
            for kind in kinds {
                var time = state.last[kind]! + period
                if now - time > Self.maximumCatchUp {
                    time += ((now - time - Self.maximumCatchUp) / period).rounded(.up) * period
                }
                while time <= now {
                    samples.append(state.imu.sample(kind, at: time, timestamp: state.startTime + time))
                    state.last[kind] = time
                    time += period
                }
            }
            return samples.sorted { $0.timestamp < $1.timestamp }
        }
    }
}
