import Dispatch
import MotionCore
import MotionSync

/// `sim:` — the deterministic ``SimulatedIMU`` (accelerometer, gyroscope, magnetometer) played
/// in real time: each requested kind has its own period and its samples lie on an even grid
/// from the boot time at start, like a hardware clock. A timer per period wakes once per
/// period and emits every grid point that is due, so a late wake-up loses nothing and no
/// timestamp is ever in the future. A period change continues the grid from the last sample.
/// The script loops forever.
///
/// Its queue runs on the consumer's queue given to the first `start` (Dispatch target queue):
/// a tick then wakes one thread, not one for the simulation and another for the pipeline.
public final class SimulatedSource: MotionSource {
    public let uri = "sim:"
    private let queue = DispatchQueue(label: "motiond.sim", attributes: .initiallyInactive)
    private let activated = Lock(false)
    /// Used only on `queue`, so the lock is never contended; it lets the compiler check that.
    private let state: Lock<State>

    private struct State {
        var imu: SimulatedIMU
        var delivery: (queue: DispatchQueue, handler: SourceHandler)?
        var timers: [Double: (kinds: Set<SensorKind>, timer: DispatchSourceTimer)] = [:]
        /// The kinds being read, as last announced.
        var readingKinds = Set<SensorKind>()
        /// Script time (seconds since start) of the last sample emitted per kind.
        var last: [SensorKind: Double] = [:]
        var startTime = 0.0

        mutating func cancelTimers() {
            for (_, entry) in timers { entry.timer.cancel() }
            timers = [:]
        }
    }

    public init(imu: SimulatedIMU = SimulatedIMU()) {
        state = Lock(State(imu: imu))
    }

    deinit {
        // Dispatch traps when an inactive queue is released (a source made and never started,
        // as by `motiond --source sim: --list-sensors`).
        if !activated.withLock({ $0 }) { queue.activate() }
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        activated.withLock { activated in
            guard !activated else { return }
            activated = true
            queue.setTarget(queue: target)
            queue.activate()
        }
        queue.sync {
            state.withLock { state in
                state.cancelTimers()
                state.delivery = (target, handler)
                state.startTime = BootClock.now()
                state.last = [:]
                state.readingKinds = []
                // Every simulated sensor exists; requested ones are announced as read by `apply`.
                for kind in SensorKind.allCases where request.periods[kind] == nil {
                    target.async { handler(.availability(kind, Self.idle)) }
                }
                apply(request, &state)
            }
        }
    }

    private var isActive: Bool { activated.withLock { $0 } }

    public func update(_ request: SourceRequest) throws(SourceError) {
        // Before the first start there is nothing to change (and the queue is not active yet).
        guard isActive else { return }
        queue.sync { state.withLock { apply(request, &$0) } }
    }

    public func stop() {
        guard isActive else { return }
        queue.sync {
            state.withLock { state in
                state.cancelTimers()
                state.delivery = nil
            }
        }
    }

    /// A simulated sensor nobody reads: present, not running.
    private static let idle = SensorAvailability(isAvailable: true, reason: "simulated IMU, idle")

    /// At most this many seconds of missed samples are caught up (the timer's clock stops during
    /// suspend, the boot clock does not): older grid points are skipped.
    static let maximumCatchUp = 1.0

    private func apply(_ request: SourceRequest, _ state: inout State) {
        guard let delivery = state.delivery else { return }
        // One timer per distinct period serves every kind at that period, so three sensors at
        // 100 Hz cost one wake-up per tick (and reach the pipeline as one burst), not three.
        let groups = Dictionary(grouping: request.periods.keys, by: { request.periods[$0]! }).mapValues(Set.init)
        for (period, entry) in state.timers where groups[period] != entry.kinds {
            entry.timer.cancel()
            state.timers[period] = nil
        }
        for kind in SensorKind.allCases where request.periods[kind] == nil && state.readingKinds.contains(kind) {
            delivery.queue.async { delivery.handler(.availability(kind, Self.idle)) }
        }
        for (period, kinds) in groups.sorted(by: { $0.key < $1.key }) where state.timers[period] == nil {
            for kind in kinds {
                // The grid continues after the last sample, or starts now for a new kind.
                state.last[kind] = max(state.last[kind] ?? -.infinity, BootClock.now() - state.startTime - period)
            }
            let order = kinds.sorted { $0.rawValue < $1.rawValue }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in
                let due = self.state.withLock { state in
                    let now = BootClock.now() - state.startTime
                    var samples: [Sample] = []
                    for kind in order {
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
                    // Interleaved in time, as scans of one device arrive.
                    return samples.sorted { $0.timestamp < $1.timestamp }
                }
                if !due.isEmpty { delivery.queue.async { due.forEach { delivery.handler(.sample($0)) } } }
            }
            state.timers[period] = (kinds, timer)
            for kind in order where !state.readingKinds.contains(kind) {
                delivery.queue.async {
                    delivery.handler(.availability(kind, SensorAvailability(isAvailable: true, reason: "simulated IMU", mode: .polling)))
                }
            }
            timer.resume()
        }
        state.readingKinds = Set(request.periods.keys)
    }
}
