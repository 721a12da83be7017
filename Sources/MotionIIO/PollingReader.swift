import Dispatch
import Logging
import MotionCore
import MotionSync

/// Reads a device's `_raw` (or processed `_input`) sysfs attributes on a ``PeriodicThread`` and stamps each reading
/// with CLOCK_BOOTTIME: one thread per device, so a slow device (HID sensor hubs answer raw
/// reads synchronously) never delays another, and one wake-up per reading of all its sensors.
/// Read slowly (``TickThread/sharedFrom``: the rest rate, a light's pace), it is a job of the
/// source's shared thread instead, so the devices of a still machine wake it together — except
/// an accelerometer that may sleep on its motion events at rest (``restsOnEvents(_:)``,
/// ``RestSleep/mayUseEvents``): waiting on them blocks the thread it runs on.
///
/// On a local device the attributes stay open and are re-read in place (``HeldAttribute``).
///
/// The hardware runs at `period`; the device is read every `interval` (at least `period`):
/// the slow rest rate reads a still device a few times a second, and ``retime(interval:)``
/// changes that without reopening anything. Every reading is delivered at once (a batching
/// client's latency changes nothing here: a reading not taken is lost). At the rest rate, a device with motion events
/// sleeps on them instead (``RestSleep``).
final class PollingReader: DeviceReader {
    let mode = ReadMode.polling
    private let device: IIODevice
    private let sensors: [SensorDescriptor]
    /// The channels of each sensor (x, y, z, or the one of a light or proximity sensor) and the
    /// attribute read from each (`raw`, or `input` for a processed-only channel).
    private let channels: [[(channel: IIOChannel, attribute: String)]]
    private let period: Double
    private let output: ReaderOutput
    private let logger: Logger
    /// Used only by the reading thread, so the lock is never contended; it lets the compiler
    /// check that.
    private let state: Lock<State>
    /// Where the reads run now (changed by ``retime(read:deliver:)``). Taken only by the
    /// source's queue (start, retime, stop), never by a read, so never contended, even while
    /// it waits for a read to end.
    private let placement: Lock<Placement>
    /// The source's shared thread of slow reads, if any.
    private let slow: TickThread?
    private let rest: RestSleep
    /// Whether a long interval is the accelerometer's rest rate, which may sleep on motion
    /// events (``restsOnEvents(_:)``); a light or proximity sensor's long interval is just its pace.
    private let restsOnEvents: Bool

    /// Whether a device read for `kinds` may sleep on its accelerometer's motion events at the
    /// rest rate: it reads the accelerometer, and not a gyroscope too. A resting compass reads
    /// its gyroscope every rest interval because a turn flat on a table moves nothing the
    /// accelerometer's events see (docs/SENSORS.md, "Rest rate").
    static func restsOnEvents(_ kinds: some Sequence<SensorKind>) -> Bool {
        let kinds = Set(kinds)
        return kinds.contains(.accelerometer) && !kinds.contains(.gyroscope)
    }

    /// Where the reads run: a thread of the reader's own, or a job of the shared thread.
    private enum Placement {
        case unstarted(interval: Double)
        case own(PeriodicThread)
        case shared(TickThread.Job)
        case stopped
    }

    private struct State {
        /// One per sensor, so one failing sensor does not make another's recovery noisy.
        var episodes: [FaultEpisode]
        /// Parallel to `channels`: on a local device each attribute's file, held open
        /// (``HeldAttribute``); nil where libiio reads it (iiod, or a file it does not name).
        var held: [[HeldAttribute?]]
        /// Boot time since which every read has failed, if they do.
        var failingSince: Double?
    }

    init(device: IIODevice, sensors: [SensorDescriptor], period: Double, interval: Double? = nil, slow: TickThread? = nil,
         output: ReaderOutput, logger: Logger) {
        self.device = device
        self.sensors = sensors
        channels = sensors.map { sensor in
            sensor.axes.compactMap { axis in device.inputChannel(axis.id).map { ($0, axis.valueAttribute) } }
        }
        let directory = device.context.isLocal ? SysfsDirectory(device: device).path : nil
        let held = channels.map { axes in
            axes.map { axis in
                directory.flatMap { directory in axis.channel.filename(of: axis.attribute).map { HeldAttribute(path: "\(directory)/\($0)") } }
            }
        }
        state = Lock(State(episodes: Array(repeating: FaultEpisode(), count: sensors.count), held: held))
        self.period = period
        self.output = output
        self.logger = logger
        placement = Lock(.unstarted(interval: max(interval ?? period, period)))
        self.slow = slow
        rest = RestSleep(device: device, logger: logger)
        restsOnEvents = Self.restsOnEvents(sensors.map(\.kind))
        rest.setResting(restsOnEvents && (interval ?? period) > period)
    }

    /// Starts reading; the sampling frequency is the source's to set first (``SamplingRate``).
    func start() throws(SystemError) {
        try placement.withLock { placement throws(SystemError) in
            guard case .unstarted(let interval) = placement else { return }
            placement = try place(every: interval, first: nil)
        }
    }

    /// Reads every `interval` seconds from now on (never faster than the hardware period); a
    /// longer one than the period is the rest rate. A move between the reader's own thread and
    /// the shared one takes effect at once; false when no thread could be had.
    func retime(read interval: Double, deliver _: Double) -> Bool {
        rest.setResting(restsOnEvents && interval > period)
        let every = max(interval, period)
        return placement.withLock { placement in
            switch placement {
            case .unstarted:
                placement = .unstarted(interval: every)
                return true
            case .stopped:
                return true
            case .own(let thread) where !shares(every):
                thread.setPeriod(every)
                return true
            case .shared(let job) where shares(every):
                slow?.setPeriod(every, of: job)
                return true
            case .own(let thread):
                thread.stop()
            case .shared(let job):
                slow?.remove(job)
            }
            // Into the shared thread a period from now (the last read was just now, or it
            // read faster); out of it at once (motion came back).
            do {
                placement = try place(every: every, first: shares(every) ? BootClock.now() + every : nil)
                return true
            } catch {
                placement = .stopped
                return false
            }
        }
    }

    func stop() {
        rest.end()
        placement.withLock { placement in
            switch placement {
            case .own(let thread): thread.stop()
            case .shared(let job): slow?.remove(job)
            case .unstarted, .stopped: break
            }
            placement = .stopped
        }
        rest.close()
    }

    /// Whether reads `every` seconds go to the shared thread: slow ones, unless they may sleep
    /// on motion events (which blocks the thread they run on).
    private func shares(_ every: Double) -> Bool {
        slow != nil && every >= TickThread.sharedFrom && !(restsOnEvents && rest.mayUseEvents)
    }

    /// Starts the reads every `every` seconds where they belong, the first at `first`.
    private func place(every: Double, first: Double?) throws(SystemError) -> Placement {
        let read: @Sendable () -> Bool = { [unowned self] in
            rest.sleepIfResting()
            return state.withLock { tick(&$0) }
        }
        if let slow, shares(every) {
            return .shared(try slow.add(period: every, first: first, read))
        }
        let thread = PeriodicThread(name: "poll.\(device.id)", period: every)
        try thread.start(at: first, read)
        return .own(thread)
    }

    /// Reads every sensor once and delivers the readings together; false once the device is
    /// given up.
    private func tick(_ state: inout State) -> Bool {
        var anySucceeded = false
        var readings: [SourceEvent] = []
        var lastFault: ReadFault?
        for (index, (sensor, axes)) in zip(sensors, channels).enumerated() {
            do {
                let raw = try read(axes, held: state.held[index])
                let sample = Sample(kind: sensor.kind, timestamp: BootClock.now(), vector: sensor.conversion.convert(raw: raw))
                readings.append(.sample(sample))
                anySucceeded = true
                if let count = state.episodes[index].recovered() {
                    logger.notice("\(sensor.kind) on \(device) reads again after \(count) failed reads")
                }
            } catch {
                if case .io(let io) = error, io.isDeviceGone {
                    output.emit(readings)
                    output.lost(error.description)
                    return false
                }
                lastFault = error
                if state.episodes[index].occurred() {
                    logger.warning("polling \(sensor.kind) on \(device) failed: \(error); retrying every period, logging again when it recovers")
                }
            }
        }
        output.emit(readings)
        let now = BootClock.now()
        if anySucceeded {
            state.failingSince = nil
        } else if let lastFault {
            let since = state.failingSince ?? now
            state.failingSince = since
            if now - since >= Self.lossAfter {
                output.lost("every read failed for \(Int(Self.lossAfter)) s, last: \(lastFault)")
                return false
            }
        }
        return true
    }

    private func read(_ axes: [(channel: IIOChannel, attribute: String)], held: [HeldAttribute?]) throws(ReadFault) -> Vector3 {
        var raw = Vector3.zero
        for (index, ((channel, attribute), file)) in zip(axes, held).enumerated() {
            // Held: its bytes as read; through libiio (iiod): its text's bytes.
            let bytes: ArraySlice<UInt8>
            do {
                bytes = if let file { try file.read() } else { ArraySlice(try channel.read(attribute).utf8) }
            } catch {
                throw .io(error)
            }
            guard let value = SysfsNumber.parse(bytes: bytes) else {
                throw .unparseable(attribute: "\(channel.sysfsPrefix)_\(attribute)", text: SysfsDirectory.text(bytes))
            }
            raw[index] = value
        }
        return raw
    }
}
