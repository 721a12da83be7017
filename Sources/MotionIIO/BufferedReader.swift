import Dispatch
import FoundationEssentials
import Glibc
import Logging
import MotionCore
import MotionSync
import Synchronization

/// Reads a device through its kernel buffer (`/dev/iio:deviceN`) with libiio: every scan, in
/// order, with the kernel's timestamp in CLOCK_BOOTTIME.
///
/// Setup: refuse a buffer another consumer has enabled, set `current_timestamp_clock` to
/// `boottime` where writable, attach the data-ready trigger if none is attached, set the
/// sampling frequency, enable the axis and timestamp channels, open the buffer with `batch`
/// scans per refill (libiio sets `buffer/watermark` to it, see ``IIOBuffer``; where the driver
/// has a writable `buffer/hwfifo_timeout`, as cros-ec sensors do, it gets batch × period), and
/// probe that data really arrives within 500 ms plus the rest of one batch (polling its descriptor;
/// through iiod, which has none, by one refill under that timeout, whose scans are kept and
/// delivered first). Any failure there is a ``Fallback`` and the caller polls instead — except a
/// probe without data on a device whose channels have no `_raw` attribute: nothing could be
/// polled, so its buffer is read, waiting for data.
/// Teardown (on `stop`) destroys the buffer (disabling it), writes back `buffer/length`,
/// `buffer/watermark`, `buffer/hwfifo_timeout` and `current_timestamp_clock` as they were, and
/// detaches a trigger it attached. Reading runs on a dedicated thread blocked in `iio_buffer_refill`
/// (one scan per refill), or, for a batch on this machine, as a job of a ``TickThread`` that
/// every interval it delivers at takes everything the kernel holds without blocking: the
/// source's shared thread of slow reads when the interval is slow (``TickThread/sharedFrom``),
/// so the devices of a still machine wake it together, else a thread of its own.
final class BufferedReader: DeviceReader {
    /// Why the buffer cannot be used; the sentence is logged and shown in the sensor's status.
    enum Fallback: Error, CustomStringConvertible {
        case busy(String)
        case noData(Double)
        case failed(IIOError)

        var description: String {
            switch self {
            case .busy(let how): return "the buffer is in use by another program such as iio-sensor-proxy (\(how))"
            case .noData(let seconds): return "the buffer produced no data within \(Int(seconds * 1000)) ms"
            case .failed(let error): return "the buffer could not be set up: \(error)"
            }
        }
    }

    /// How long the probe waits for the first scan (plus, for a batch, its other scans).
    static let probeTimeout = 0.5
    /// A timed-out read across which the system slept longer than this (seconds) timed out
    /// because of the sleep.
    static let suspendTolerance = 0.1

    /// Scans per wake-up of the reading thread, as given, but at most what fills in half the
    /// context timeout: libiio drops a batch that is not complete when the timeout ends.
    let batch: Int
    /// The period it reads at, seconds.
    private let period: Double

    /// The batch that lets a device read every `period` deliver every `interval` seconds.
    static func batch(interval: Double, period: Double) -> Int {
        max(1, Int((interval / period + 1e-6).rounded(.down)))
    }

    /// Scans a resting buffer samples per rest interval, at least (``samplingPeriod(period:interval:)``).
    static let restScans = 4.0
    /// The slowest a resting buffer samples, seconds (20 Hz): two devices read in one wake-up (a
    /// convertible's display and base accelerometers) then have newest scans within 50 ms of
    /// each other, inside the 0.1 s in which the hinge pairs them
    /// (`HingeEstimator.Parameters.pairingWindow`), and a move waits at most 50 ms more to show.
    static let slowestRestPeriod = 0.05

    /// The period a device read every `period` samples at while it is read only every
    /// `interval` (its rest rate, longer than `period`): a quarter of the interval, from
    /// `period` up to ``slowestRestPeriod``. At rest only a batch's newest scan is fused
    /// (docs/SENSORS.md "Rest rate"), so the scans between are not worth the device's reports,
    /// the kernel's pushes and the decoding (a HID hub at rest went from 17 scans per 0.35-s
    /// wake-up to 7).
    static func samplingPeriod(period: Double, interval: Double) -> Double {
        guard interval > period else { return period }
        return max(period, min(interval / restScans, slowestRestPeriod))
    }

    /// `batch` within 1 and what fills half the context `timeout`.
    private static func limited(_ batch: Int, period: Double, timeout: Double) -> Int {
        max(1, min(batch, Int(timeout / 2 / period)))
    }

    let mode = ReadMode.buffered
    private let device: IIODevice
    private let output: ReaderOutput
    private let logger: Logger
    private let buffer: IIOBuffer
    private let attachedTrigger: Bool
    /// `buffer/hwfifo_timeout` as it was, when setup changed it.
    private let savedFifoTimeout: String?
    /// The sampling frequencies setup wrote, with what they were (the source restores them at
    /// exit: readers come and go with the clients' rates; the first value is the one to
    /// restore), and the frequencies in force (every scan is delivered at them).
    let rates: SamplingRate.Applied
    /// The clock of the kernel timestamps (CLOCK_BOOTTIME once set); `nil` to stamp samples on
    /// arrival (no timestamp channel, an unknown clock, or a remote device whose clock is not
    /// this machine's).
    private let clock: clockid_t?
    /// `current_timestamp_clock` as it was, when setup changed it.
    private let savedTimestampClock: String?
    /// Per sensor: its kind, its conversion, and where its axes are in ``axes``. Values with no
    /// reference to count: the per-scan loop copies them.
    private let layout: [(kind: SensorKind, conversion: SampleConversion, axes: Range<Int>)]
    /// Every sensor's axes, in ``layout``'s order.
    private let axes: [IIOChannel.ScanField]
    private let timestamp: IIOChannel.ScanField?
    private let enabled: [IIOChannel]
    private let stopping = Atomic<Bool>(false)
    /// Samples read while probing (during init), delivered by the first read.
    private let pending = Lock<[Sample]>([])
    private let finished = DispatchSemaphore(value: 0)
    /// Whether reads come from a ticking thread that takes what the kernel holds without
    /// blocking, instead of a thread blocked until the batch is in: the kernel wakes a reader
    /// blocked on the buffer at every scan, whatever the watermark (the system tier measured
    /// 34–38 wake-ups a second at rest at 50 Hz on the HID drivers), so a batch on this
    /// machine is read by a thread that wakes once per batch. Not through iiod.
    private var sleeps: Bool { ticker != nil }
    /// How long between a sleeping reader's reads, seconds: the interval it delivers at, which
    /// a whole number of scans need not fill (a 0.35-s rest at 10 Hz is not three scans' 0.3
    /// s); the kernel holds 128 batches, so nothing is lost.
    private let nap: Double
    /// A sleeping reader's thread (the shared one, or its own; nil for a blocking reader) and
    /// its job there once started.
    private let ticker: (thread: TickThread, owned: Bool)?
    private let job = Lock<TickThread.Job?>(nil)
    /// What the reads carry from one to the next (only one runs at a time).
    private let progress: Lock<Progress>

    /// Sets up the buffer and probes it; throws a ``Fallback`` when polling must be used.
    /// `batch` is the number of scans per wake-up of the reading thread (1: every scan as it
    /// comes); see ``batch`` for its limit. `deliver` is the interval the batch was made for
    /// (nil: the batch's own time). `softwareTrigger`, for a device without a trigger of
    /// its own, is attached like the device's own would be (its owner removes it).
    /// `sensorProxy` says whether iio-sensor-proxy runs, for a buffer found enabled and not held.
    /// `slow` is the source's shared thread of slow reads (nil: a sleeping reader gets its own).
    init(device: IIODevice, sensors: [SensorDescriptor], period: Double, batch: Int = 1, deliver: Double? = nil, devices: [IIODevice],
         softwareTrigger: SoftwareTrigger? = nil, sensorProxy: () -> SensorProxyPresence = { .unknown("not asked") },
         slow: TickThread? = nil, output: ReaderOutput, logger: Logger) throws(Fallback) {
        self.batch = Self.limited(batch, period: period, timeout: device.context.timeout)
        self.period = period
        nap = deliver ?? Double(self.batch) * period
        progress = Lock(Progress())
        self.device = device
        self.output = output
        self.logger = logger

        switch BufferOwnership.check(device, sensorProxy: sensorProxy) {
        case .free: break
        case .held(let how): throw .busy(how)
        case .abandoned(let who):
            // libiio disables and reconfigures it when opening.
            logger.notice("the buffer of \(device) was left enabled \(who); taking it over")
        }
        (clock, savedTimestampClock) = device.context.isLocal ? Self.setTimestampClock(device, logger: logger) : (nil, nil)

        var attached = false
        let trigger = BufferTrigger.find(for: device, among: devices)
        if case .available(let own) = trigger {
            do {
                try device.setTrigger(own)
                attached = true
            } catch {
                if let savedTimestampClock { try? device.write("current_timestamp_clock", savedTimestampClock) }
                throw .failed(error)
            }
        } else if let softwareTrigger, !trigger.isAttached(softwareTrigger.name) {
            // Made after the context was: not among its devices, so written by name.
            do {
                try SysfsDirectory(device: device).write("trigger/current_trigger", softwareTrigger.name)
                attached = true
            } catch {
                if let savedTimestampClock { try? device.write("current_timestamp_clock", savedTimestampClock) }
                throw .failed(error)
            }
        }
        attachedTrigger = attached
        let applied = SamplingRate.apply(period: period, to: device, sensors: sensors, exclusive: true, logger: logger)
        rates = applied
        let changes = applied.changes
        // A setup that fails puts the frequencies back too: the polling that follows finds them
        // as they were (and the source records what it changes then).
        func undoRates() { for change in changes { try? change.restore(in: device.context) } }

        var channels: [[IIOChannel]] = []
        for sensor in sensors {
            channels.append(sensor.axes.compactMap { device.inputChannel($0.id) })
        }
        let timestampChannel = device.inputChannel("timestamp").flatMap { $0.isScanElement ? $0 : nil }
        enabled = channels.flatMap { $0 } + (timestampChannel.map { [$0] } ?? [])
        enabled.forEach { $0.enable() }

        // A hardware FIFO that holds samples for a time (cros-ec) holds them for one batch.
        var savedFifoTimeout: String?
        if self.batch > 1, let old = try? device.readBuffer("hwfifo_timeout") {
            do {
                try device.writeBuffer("hwfifo_timeout", SysfsNumber.format(Double(self.batch) * period))
                savedFifoTimeout = old
            } catch {
                logger.info("cannot set buffer/hwfifo_timeout of \(device) (\(error)); keeping \(old) s")
            }
        }
        self.savedFifoTimeout = savedFifoTimeout

        let buffer: IIOBuffer
        do {
            // `batch` scans per refill: 1 for the lowest latency, more to wake less often; 128
            // blocks of kernel slack (over a second at 100 Hz) so a briefly delayed thread
            // loses nothing.
            buffer = try IIOBuffer(device: device, samples: self.batch, kernelBlocks: 128)
        } catch {
            enabled.forEach { $0.disable() }
            if attached { try? device.setTrigger(nil) }
            if let savedFifoTimeout { try? device.writeBuffer("hwfifo_timeout", savedFifoTimeout) }
            if let savedTimestampClock { try? device.write("current_timestamp_clock", savedTimestampClock) }
            undoRates()
            if error.isBusy { throw .busy("opening /dev/\(device.id) gave EBUSY") }
            throw .failed(error)
        }
        self.buffer = buffer
        // libiio keeps the blocking mode per device, not per buffer: a reader after a sleeping
        // one sets it back, or its refills would return at once and spin (the system tier
        // found that when rest ended).
        if !(self.batch > 1 && device.context.isLocal && (try? buffer.setBlocking(false)) != nil) {
            try? buffer.setBlocking(true)
            ticker = nil
        } else if let slow, nap >= TickThread.sharedFrom {
            ticker = (slow, false)
        } else {
            ticker = (TickThread(name: "buffer.\(device.id)"), true)
        }
        // Every axis must sit inside the scan, or decoding would read past it.
        func place(_ channel: IIOChannel) -> Int? {
            guard let offset = buffer.offset(of: channel), offset >= 0,
                  offset + channel.format.storageBits / 8 * channel.format.repeats <= buffer.step else { return nil }
            return offset
        }
        var layout: [(kind: SensorKind, conversion: SampleConversion, axes: Range<Int>)] = []
        var axes: [IIOChannel.ScanField] = []
        for (sensor, chans) in zip(sensors, channels) {
            let offsets = chans.compactMap(place)
            guard chans.count == sensor.axes.count, offsets.count == chans.count else {
                self.layout = []
                self.axes = []
                timestamp = nil
                teardown()
                undoRates()
                throw .failed(IIOError(code: EINVAL, operation: "lay out the \(sensor.kind) channels in the scans of \(device)"))
            }
            layout.append((sensor.kind, sensor.conversion, axes.count..<axes.count + chans.count))
            axes += zip(chans, offsets).map(IIOChannel.ScanField.init)
        }
        self.layout = layout
        self.axes = axes
        timestamp = timestampChannel.flatMap { channel in place(channel).map { IIOChannel.ScanField(channel, offset: $0) } }

        // With the watermark at `batch`, the first wake-up comes after a whole batch.
        let probeTimeout = Self.probeTimeout + Double(self.batch - 1) * period
        let hasData: Bool
        do {
            hasData = try probe(device.context, timeout: probeTimeout)
        } catch {
            teardown()
            undoRates()
            throw .failed(error)
        }
        // Polling needs `_raw` attributes: a device that offers its channels only as scan
        // elements keeps its buffer, which may yet deliver (a sensor that reports on change).
        if !hasData, channels.joined().allSatisfy({ $0.filename(of: "raw") != nil }) {
            teardown()
            undoRates()
            throw .noData(probeTimeout)
        }
        if !hasData {
            logger.notice("the buffer of \(device) produced no data within \(Int(probeTimeout * 1000)) ms, and its channels have no _raw attributes to poll instead: reading the buffer, waiting for data")
        }
    }

    /// Whether the buffer yields data within `timeout` seconds.
    private func probe(_ context: IIOContext, timeout: Double) throws(IIOError) -> Bool {
        do {
            return try buffer.waitForData(timeout: timeout)
        } catch where error.code == ENOSYS {
            // iiod offers no poll descriptor: read once with a short timeout instead.
            context.setTimeout(timeout)
            defer { context.setTimeout(context.timeout) }
            do {
                var samples: [Sample] = []
                let offset = clockOffset()
                try buffer.refill { scan in decode(scan, clockOffset: offset, into: &samples) }
                pending.withLock { $0 += samples }
                return true
            } catch where error.isTimeout {
                return false
            }
        }
    }

    /// Starts reading: a thread blocked in refills, or a sleeping reader's job (its first read
    /// at once, with the probe's scans).
    func start() throws(SystemError) {
        do {
            if let ticker {
                let added = try ticker.thread.add(period: nap) { [self] in
                    progress.withLock { step(&$0) } != .end
                }
                job.withLock { $0 = added }
            } else {
                try BackgroundThread.start(name: "buffer.\(device.id)") { [self] in
                    run()
                    teardown()
                    finished.signal()
                }
            }
        } catch {
            // Nothing will read: tear down here, so `stop` finds nothing to wait for.
            teardown()
            if ticker == nil { finished.signal() }
            throw error
        }
    }

    /// The batch is fixed when the buffer is made: a reader whose batch does not fit the new
    /// interval is replaced (every scan is still delivered; only the wake-ups change).
    func retime(read _: Double, deliver interval: Double) -> Bool {
        guard Self.limited(Self.batch(interval: interval, period: period), period: period, timeout: device.context.timeout) == batch else { return false }
        if let ticker, let job = job.withLock({ $0 }) { ticker.thread.setPeriod(interval, of: job) }
        return true
    }

    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        buffer.cancel()
        if let ticker {
            if let job = job.withLock({ $0 }) { ticker.thread.remove(job) }
            if ticker.owned { ticker.thread.stop() }
            teardown()
        } else {
            finished.wait()
        }
    }

    /// What the reads carry from one to the next.
    private struct Progress {
        /// Whether the first read (which delivers the probe's scans first) has come.
        var begun = false
        /// Restamps scans without a usable kernel timestamp (``restamped(_:arrival:_:)``).
        var filter: ArrivalTimestamps?
        var onDeviceClock = false
        /// Whether the first scans must still tell which clock a HID hub stamps them on.
        var undecided = false
        var episode = FaultEpisode()
        /// Boot time since which every read has failed, if they do.
        var failingSince: Double?
    }

    /// What ``step(_:)`` leaves the loop to do.
    private enum Step {
        case next
        /// An error that may come back at once: do not spin.
        case pause
        case end
    }

    /// The blocking reader's loop.
    private func run() {
        progress.withLock { progress in
            while !stopping.load(ordering: .acquiring) {
                switch step(&progress) {
                case .next: continue
                case .pause: usleep(100_000)
                case .end: return
                }
            }
        }
    }

    /// One read — a refill's scans (blocking), or everything the kernel holds (sleeping) —
    /// delivered together (one wake-up, one burst); a failure is judged (gone, asleep, lost
    /// after ``lossAfter``, or logged once per episode).
    private func step(_ progress: inout Progress) -> Step {
        if stopping.load(ordering: .acquiring) { return .end }
        if !progress.begun {
            progress.begun = true
            // Scans without a kernel timestamp are stamped from their arrival, filtered (jitter
            // smoothed, a refill's scans one period apart). A HID sensor hub that stamps its own
            // reports makes the kernel ignore current_timestamp_clock: its first scans tell (far
            // from their arrival), and its stamps are then laid onto the boot clock.
            progress.filter = timestamp == nil || clock == nil ? ArrivalTimestamps(nominalPeriod: period) : nil
            progress.undecided = progress.filter == nil && device.context.isLocal && SysfsDirectory(device: device).isHIDSensor
            let probed = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            // The probe's scans came moments ago, while the buffer was set up. A sleeping
            // reader's first tick (at once) is for them alone: its buffer is read a nap later.
            output.emit(restamped(probed, arrival: BootClock.now(), &progress).map { .sample($0) })
            if sleeps { return .next }
        }
        let asleepBefore = BootClock.asleep()
        do {
            var samples: [Sample] = []
            if sleeps {
                try drain(into: &samples)
            } else {
                let offset = clockOffset()
                try buffer.refill { scan in decode(scan, clockOffset: offset, into: &samples) }
            }
            output.emit(restamped(samples, arrival: BootClock.now(), &progress).map { .sample($0) })
            progress.failingSince = nil
            if let count = progress.episode.recovered() {
                logger.notice("buffer of \(device) delivers again after \(count) failed reads")
            }
            return .next
        } catch {
            if stopping.load(ordering: .acquiring) { return .end }
            if error.isDeviceGone {
                output.lost(error.description)
                return .end
            }
            // A removed device's blocked read may only time out (ETIMEDOUT, as HID sensors
            // do on 6.1): whether it is still there decides at once, udev or not.
            if device.context.isLocal, !SysfsDirectory(device: device).exists {
                output.lost("\(device.id) is gone (its sysfs directory vanished; the read said: \(error))")
                return .end
            }
            // A read that waited across a system suspend timed out because the machine
            // slept (user space is frozen first, which may take long): not a fault.
            if error.isTimeout, BootClock.asleep() - asleepBefore > Self.suspendTolerance {
                logger.info("\(device): the system slept during a read (\(SysfsNumber.format(BootClock.asleep() - asleepBefore)) s); reading on")
                progress.failingSince = nil
                return .next
            }
            let now = BootClock.now()
            let since = progress.failingSince ?? now
            progress.failingSince = since
            if now - since >= Self.lossAfter {
                output.lost("no data from the buffer for \(Int(Self.lossAfter)) s, last: \(error)")
                return .end
            }
            if progress.episode.occurred() {
                let what = !error.isTimeout ? error.description
                    : sleeps ? "no data in the buffer of \(device) since the last read" : "no data from the buffer of \(device) within the context timeout"
                logger.warning("\(what); still waiting, logging again when data flows")
            }
            // A timeout already waited; any other error may return at once. A sleeping
            // reader's next read is a nap away anyway.
            return error.isTimeout || sleeps ? .next : .pause
        }
    }

    /// `samples` as stamped for the pipeline: as they are, or, without a usable kernel
    /// timestamp, placed by ``ArrivalTimestamps`` from their arrival.
    private func restamped(_ samples: [Sample], arrival: Double, _ progress: inout Progress) -> [Sample] {
        guard let newest = samples.last else { return samples }
        if progress.undecided {
            progress.undecided = false
            let lag = arrival - newest.timestamp
            if !(-0.05...0.25).contains(lag) {
                logger.notice("\(device) stamps its scans on the sensor hub's own clock, \(SysfsNumber.format(lag)) s off the boot clock (HID timestamp usage 0x0529): laying them onto the boot clock",
                              metadata: ["device": "\(device.id)"])
                progress.filter = ArrivalTimestamps(deviceClockPeriod: period)
                progress.onDeviceClock = true
            }
        }
        guard var line = progress.filter else { return samples }
        let perScan = layout.count
        let stamps = progress.onDeviceClock
            ? line.stamps(deviceTimes: stride(from: 0, to: samples.count, by: perScan).map { samples[$0].timestamp }, arrival: arrival)
            : line.stamps(count: samples.count / perScan, arrival: arrival)
        progress.filter = line
        return samples.enumerated().map { index, sample in
            var sample = sample
            sample.timestamp = stamps[index / perScan]
            return sample
        }
    }

    /// Reads every scan the kernel holds without blocking, in reads of at most a batch (a full
    /// one may leave more behind: the sleep may be longer than a batch's time); EAGAIN only
    /// when there was none.
    private func drain(into samples: inout [Sample]) throws(IIOError) {
        let offset = clockOffset()
        samples.reserveCapacity(samples.count + batch * layout.count)
        while true {
            let count: Int
            do {
                count = try buffer.refill { scan in decode(scan, clockOffset: offset, into: &samples) }
            } catch where error.code == EAGAIN && !samples.isEmpty {
                return
            }
            if count < batch { return }
        }
    }

    /// Seconds to add to a kernel timestamp for boot time, taken once per read (realtime steps,
    /// and monotonic misses suspends; a read takes microseconds); nil: samples are stamped on
    /// arrival.
    private func clockOffset() -> Double? {
        guard timestamp != nil, let clock else { return nil }
        return BootClock.offset(from: clock)
    }

    /// Appends the samples of one scan, one per sensor, all with the scan's timestamp (without
    /// one, `clockOffset` nil: now, which `run` then filters).
    private func decode(_ scan: UnsafeRawPointer, clockOffset: Double?, into samples: inout [Sample]) {
        let time: Double
        if let timestamp, let clockOffset {
            time = Double(timestamp.decode(scan)) / 1e9 + clockOffset
        } else {
            time = BootClock.now()
        }
        for entry in layout {
            var raw = Vector3.zero
            for (index, axis) in entry.axes.enumerated() {
                raw[index] = Double(axes[axis].decode(scan))
            }
            samples.append(Sample(kind: entry.kind, timestamp: time, vector: entry.conversion.convert(raw: raw)))
        }
    }

    /// Writes `boottime` to `current_timestamp_clock` where it exists; returns the clock the
    /// kernel timestamps are in, or `nil` when it is unknown (samples are stamped on arrival),
    /// and the clock it replaced, to be written back on stop.
    private static func setTimestampClock(_ device: IIODevice, logger: Logger) -> (clock: clockid_t?, replaced: String?) {
        // Devices without the attribute have no timestamp channel, or stamp in realtime (the
        // kernel default before 4.5); without the attribute there is no way to know.
        guard let current = try? device.read("current_timestamp_clock") else { return (nil, nil) }
        var replaced: String?
        if current != "boottime" {
            do {
                try device.write("current_timestamp_clock", "boottime")
                replaced = current
            } catch {
                logger.info("cannot set current_timestamp_clock of \(device) to boottime (\(error)); converting from \(current)")
            }
        }
        let clock = (try? device.read("current_timestamp_clock")) ?? current
        guard let id = BootClock.clockID(named: clock) else {
            logger.warning("\(device) timestamps use unknown clock '\(clock)'; stamping samples on arrival instead")
            return (nil, replaced)
        }
        return (id, replaced)
    }

    private let tornDown = Atomic<Bool>(false)
    private func teardown() {
        guard !tornDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for error in buffer.close() {
            logger.notice("cannot restore the buffer of \(device): \(error)")
        }
        if let savedFifoTimeout {
            do {
                try device.writeBuffer("hwfifo_timeout", savedFifoTimeout)
            } catch {
                logger.notice("cannot restore buffer/hwfifo_timeout of \(device): \(error)")
            }
        }
        if let savedTimestampClock {
            do {
                try device.write("current_timestamp_clock", savedTimestampClock)
            } catch {
                logger.notice("cannot restore current_timestamp_clock of \(device): \(error)")
            }
        }
        enabled.forEach { $0.disable() }
        if attachedTrigger {
            do {
                try device.setTrigger(nil)
            } catch {
                logger.notice("cannot detach the trigger of \(device): \(error)")
            }
        }
    }
}
