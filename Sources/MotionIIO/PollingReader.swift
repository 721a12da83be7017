import Dispatch
import Logging
import MotionCore
import MotionSync

/// Reads a device's `_raw` sysfs attributes on a timer at the requested period and stamps each
/// reading with CLOCK_BOOTTIME. Runs on its own serial queue, so a slow device (HID sensor
/// hubs answer raw reads synchronously) never delays another.
final class PollingReader: DeviceReader {
    let mode = ReadMode.polling
    private let device: IIODevice
    private let sensors: [SensorDescriptor]
    /// The x, y, z channels of each sensor.
    private let channels: [[IIOChannel]]
    private let period: Double
    private let output: ReaderOutput
    private let logger: Logger
    private let queue: DispatchQueue
    /// Used only on `queue`, so the lock is never contended; it lets the compiler check that.
    private let state: Lock<State>

    private struct State {
        var timer: DispatchSourceTimer?
        /// One per sensor, so one failing sensor does not make another's recovery noisy.
        var episodes: [FaultEpisode]
        /// Boot time since which every read has failed, if they do.
        var failingSince: Double?
    }

    init(device: IIODevice, sensors: [SensorDescriptor], period: Double, output: ReaderOutput, logger: Logger) {
        self.device = device
        self.sensors = sensors
        channels = sensors.map { sensor in sensor.axes.compactMap { device.inputChannel($0.id) } }
        state = Lock(State(episodes: Array(repeating: FaultEpisode(), count: sensors.count)))
        self.period = period
        self.output = output
        self.logger = logger
        queue = DispatchQueue(label: "motiond.poll.\(device.id)")
    }

    func start() {
        queue.sync {
            SamplingRate.apply(period: period, to: device, sensors: sensors, logger: logger)
            state.withLock { state in
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
                timer.setEventHandler { [unowned self] in tick() }
                timer.resume()
                state.timer = timer
            }
        }
    }

    func stop() {
        queue.sync {
            state.withLock { state in
                state.timer?.cancel()
                state.timer = nil
            }
        }
    }

    private func tick() {
        state.withLock { tick(&$0) }
    }

    private func tick(_ state: inout State) {
        var anySucceeded = false
        var lastFault: ReadFault?
        for (index, (sensor, axes)) in zip(sensors, channels).enumerated() {
            do {
                let raw = try read(axes)
                let sample = Sample(kind: sensor.kind, timestamp: BootClock.now(), vector: sensor.conversion.convert(raw: raw))
                output.emit(.sample(sample))
                anySucceeded = true
                if let count = state.episodes[index].recovered() {
                    logger.notice("\(sensor.kind) on \(device) reads again after \(count) failed reads")
                }
            } catch {
                if case .io(let io) = error, io.isDeviceGone {
                    giveUp(error.description, &state)
                    return
                }
                lastFault = error
                if state.episodes[index].occurred() {
                    logger.warning("polling \(sensor.kind) on \(device) failed: \(error); retrying every period, logging again when it recovers")
                }
            }
        }
        let now = BootClock.now()
        if anySucceeded {
            state.failingSince = nil
        } else if let lastFault {
            let since = state.failingSince ?? now
            state.failingSince = since
            if now - since >= Self.lossAfter {
                giveUp("every read failed for \(Int(Self.lossAfter)) s, last: \(lastFault)", &state)
            }
        }
    }

    private func giveUp(_ reason: String, _ state: inout State) {
        state.timer?.cancel()
        state.timer = nil
        output.lost(reason)
    }

    private func read(_ axes: [IIOChannel]) throws(ReadFault) -> Vector3 {
        var raw = Vector3.zero
        for (index, channel) in axes.enumerated() {
            let text: String
            do {
                text = try channel.read("raw")
            } catch {
                throw .io(error)
            }
            guard let value = SysfsNumber.parse(text) else { throw .unparseable(attribute: "\(channel.sysfsPrefix)_raw", text: text) }
            raw[index] = value
        }
        return raw
    }
}
