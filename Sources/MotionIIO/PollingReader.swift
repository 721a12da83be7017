import Dispatch
import Logging
import MotionCore

/// Reads a device's `_raw` sysfs attributes on a timer at the requested period and stamps each
/// reading with CLOCK_BOOTTIME. Runs on its own serial queue, so a slow device (HID sensor
/// hubs answer raw reads synchronously) never delays another.
final class PollingReader: DeviceReader, @unchecked Sendable {
    let mode = ReadMode.polling
    private let device: IIODevice
    private let sensors: [SensorDescriptor]
    /// The x, y, z channels of each sensor.
    private let channels: [[IIOChannel]]
    private let period: Double
    private let output: ReaderOutput
    private let logger: Logger
    private let queue: DispatchQueue
    // Confined to `queue`.
    private var timer: DispatchSourceTimer?
    private var episode = FaultEpisode()

    init(device: IIODevice, sensors: [SensorDescriptor], period: Double, output: ReaderOutput, logger: Logger) {
        self.device = device
        self.sensors = sensors
        channels = sensors.map { sensor in sensor.axes.compactMap { device.inputChannel($0.id) } }
        self.period = period
        self.output = output
        self.logger = logger
        queue = DispatchQueue(label: "motiond.poll.\(device.id)")
    }

    func start() {
        queue.sync {
            SamplingRate.apply(period: period, to: device, attribute: sensors.first?.samplingFrequency, logger: logger)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(1))
            timer.setEventHandler { [unowned self] in tick() }
            timer.resume()
            self.timer = timer
        }
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    private func tick() {
        for (sensor, axes) in zip(sensors, channels) {
            do {
                let raw = try read(axes)
                let sample = Sample(kind: sensor.kind, timestamp: BootClock.now(), vector: sensor.conversion.convert(raw: raw))
                output.emit(.sample(sample))
                if let count = episode.recovered() {
                    logger.notice("\(device) reads again after \(count) failed reads")
                }
            } catch {
                if case .io(let io) = error, io.isDeviceGone {
                    timer?.cancel()
                    timer = nil
                    output.lost(io)
                    return
                }
                if episode.occurred() {
                    logger.warning("polling \(sensor.kind) on \(device) failed: \(error); retrying every period, logging again when it recovers")
                }
            }
        }
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
