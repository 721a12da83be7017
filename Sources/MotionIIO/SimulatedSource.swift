import Dispatch
import MotionCore

/// `sim:` — the deterministic ``SimulatedIMU`` (accelerometer, gyroscope, magnetometer) played
/// in real time: each requested kind ticks at its own period, its samples evenly spaced from
/// the boot time at start, like a hardware clock. The script loops forever.
public final class SimulatedSource: MotionSource, @unchecked Sendable {
    public let uri = "sim:"
    private let queue = DispatchQueue(label: "motiond.sim")
    // Confined to `queue`.
    private var imu: SimulatedIMU
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var timers: [SensorKind: (period: Double, timer: DispatchSourceTimer)] = [:]
    private var startTime = 0.0

    public init(imu: SimulatedIMU = SimulatedIMU()) {
        self.imu = imu
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        queue.sync {
            delivery = (target, handler)
            startTime = BootClock.now()
            apply(request)
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        queue.sync { apply(request) }
    }

    public func stop() {
        queue.sync {
            for (_, entry) in timers { entry.timer.cancel() }
            timers = [:]
            delivery = nil
        }
    }

    private func apply(_ request: SourceRequest) {
        guard let delivery else { return }
        for (kind, entry) in timers where request.periods[kind] != entry.period {
            entry.timer.cancel()
            timers[kind] = nil
            if request.periods[kind] == nil {
                delivery.queue.async { delivery.handler(.availability(kind, SensorAvailability(isAvailable: false, reason: "not requested"))) }
            }
        }
        for (kind, period) in request.periods where timers[kind] == nil {
            // Continue the sample grid from now, so a rate change keeps timestamps increasing.
            var tick = ((BootClock.now() - startTime) / period).rounded(.up)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in
                let time = tick * period
                tick += 1
                let sample = imu.sample(kind, at: time, timestamp: startTime + time)
                delivery.queue.async { delivery.handler(.sample(sample)) }
            }
            timers[kind] = (period, timer)
            delivery.queue.async {
                delivery.handler(.availability(kind, SensorAvailability(isAvailable: true, reason: "simulated IMU", mode: .polling)))
            }
            timer.resume()
        }
    }
}
