import Dispatch
import MotionCore

/// `sim:` — the deterministic ``SimulatedIMU`` (accelerometer, gyroscope, magnetometer) played
/// in real time: each requested kind has its own period and its samples lie on an even grid
/// from the boot time at start, like a hardware clock. A timer per period wakes once per
/// period and emits every grid point that is due, so a late wake-up loses nothing and no
/// timestamp is ever in the future. A period change continues the grid from the last sample.
/// The script loops forever.
///
/// Its queue runs on the consumer's queue given to the first `start` (Dispatch target queue):
/// a tick then wakes one thread, not one for the simulation and another for the pipeline.
public final class SimulatedSource: MotionSource, @unchecked Sendable {
    public let uri = "sim:"
    private let queue = DispatchQueue(label: "motiond.sim", attributes: .initiallyInactive)
    private let activation = DispatchQueue(label: "motiond.sim.activation")
    private var activated = false
    // Confined to `queue`.
    private var imu: SimulatedIMU
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var timers: [Double: (kinds: Set<SensorKind>, timer: DispatchSourceTimer)] = [:]
    /// The kinds being read, as last announced.
    private var readingKinds = Set<SensorKind>()
    /// Script time (seconds since start) of the last sample emitted per kind.
    private var last: [SensorKind: Double] = [:]
    private var startTime = 0.0

    public init(imu: SimulatedIMU = SimulatedIMU()) {
        self.imu = imu
    }

    deinit {
        // Dispatch traps when an inactive queue is released (a source made and never started,
        // as by `motiond --source sim: --list-sensors`).
        if !activated { queue.activate() }
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        activation.sync {
            guard !activated else { return }
            activated = true
            queue.setTarget(queue: target)
            queue.activate()
        }
        queue.sync {
            cancelTimers()
            delivery = (target, handler)
            startTime = BootClock.now()
            last = [:]
            readingKinds = []
            // Every simulated sensor exists; requested ones are announced as read by `apply`.
            for kind in SensorKind.allCases where request.periods[kind] == nil {
                target.async { handler(.availability(kind, Self.idle)) }
            }
            apply(request)
        }
    }

    private var isActive: Bool { activation.sync { activated } }

    public func update(_ request: SourceRequest) throws(SourceError) {
        // Before the first start there is nothing to change (and the queue is not active yet).
        guard isActive else { return }
        queue.sync { apply(request) }
    }

    public func stop() {
        guard isActive else { return }
        queue.sync {
            cancelTimers()
            delivery = nil
        }
    }

    private func cancelTimers() {
        for (_, entry) in timers { entry.timer.cancel() }
        timers = [:]
    }

    /// A simulated sensor nobody reads: present, not running.
    private static let idle = SensorAvailability(isAvailable: true, reason: "simulated IMU, idle")

    /// At most this many seconds of missed samples are caught up (the timer's clock stops during
    /// suspend, the boot clock does not): older grid points are skipped.
    static let maximumCatchUp = 1.0

    private func apply(_ request: SourceRequest) {
        guard let delivery else { return }
        // One timer per distinct period serves every kind at that period, so three sensors at
        // 100 Hz cost one wake-up per tick (and reach the pipeline as one burst), not three.
        let groups = Dictionary(grouping: request.periods.keys, by: { request.periods[$0]! }).mapValues(Set.init)
        for (period, entry) in timers where groups[period] != entry.kinds {
            entry.timer.cancel()
            timers[period] = nil
        }
        for kind in SensorKind.allCases where request.periods[kind] == nil && readingKinds.contains(kind) {
            delivery.queue.async { delivery.handler(.availability(kind, Self.idle)) }
        }
        for (period, kinds) in groups.sorted(by: { $0.key < $1.key }) where timers[period] == nil {
            for kind in kinds {
                // The grid continues after the last sample, or starts now for a new kind.
                last[kind] = max(last[kind] ?? -.infinity, BootClock.now() - startTime - period)
            }
            let order = kinds.sorted { $0.rawValue < $1.rawValue }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in
                let now = BootClock.now() - startTime
                var samples: [Sample] = []
                for kind in order {
                    var time = last[kind]! + period
                    if now - time > Self.maximumCatchUp {
                        time += ((now - time - Self.maximumCatchUp) / period).rounded(.up) * period
                    }
                    while time <= now {
                        samples.append(imu.sample(kind, at: time, timestamp: startTime + time))
                        last[kind] = time
                        time += period
                    }
                }
                // Interleaved in time, as scans of one device arrive.
                let due = samples.sorted { $0.timestamp < $1.timestamp }
                if !due.isEmpty { delivery.queue.async { due.forEach { delivery.handler(.sample($0)) } } }
            }
            timers[period] = (kinds, timer)
            for kind in order where !readingKinds.contains(kind) {
                delivery.queue.async {
                    delivery.handler(.availability(kind, SensorAvailability(isAvailable: true, reason: "simulated IMU", mode: .polling)))
                }
            }
            timer.resume()
        }
        readingKinds = Set(request.periods.keys)
    }
}
