import Dispatch
import Logging
import MotionCore
import MotionSync

/// The source for real hardware: the IIO devices of a libiio context (`local:` or `ip:HOST`).
///
/// It discovers sensors (``SensorDiscovery``), reads the requested kinds from the primary sensor
/// of each kind, one reader per device (buffered when the buffer works, else polling), and keeps
/// that true as devices come and go: a udev `remove` or a read error that says the device is
/// gone makes its kinds unavailable, and a udev `add` (or a retry, with backoff, for network
/// contexts and failing devices) picks them up again. All bookkeeping runs on one serial
/// queue; readers run on their own queues or threads.
// @unchecked: the `var`s below are confined to `queue` (start, update and stop enter it with
// `sync`; the udev monitor, retry timer and readers' loss reports run on it; the confined
// methods assert it in debug builds), which the compiler cannot see; moving them into a lock
// would hold it across the blocking reader stops.
public final class IIOSource: MotionSource, @unchecked Sendable {
    public let uri: String
    private let discovery: SensorDiscovery
    private let logger: Logger
    private let queue = DispatchQueue(label: "motiond.iio")

    // Everything below is confined to `queue`.
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var request = SourceRequest.none
    private var context: IIOContext?
    private var found: SensorDiscovery.Result?
    private var readers: [String: ActiveReader] = [:]
    /// The thread every slow read shares while the source runs (``TickThread/sharedFrom``):
    /// the devices of a still machine wake it together.
    private var slowReads: TickThread?
    private var availability: [SensorKind: SensorAvailability] = [:]
    private var monitor: HotplugMonitor?
    private var retry: DispatchSourceTimer?
    private var retryDelay = minimumRetryDelay
    private var reported = Set<String>()
    /// The sensors whose findings were logged (once each, not at every rescan).
    private var described = Set<String>()
    /// Devices lost and not seen again through udev: later losses of them are logged at debug.
    private var lostDevices = Set<String>()
    /// Devices udev reported removed and not added since: a rescan does not offer them even
    /// while their sysfs directory still lists (udev's word is the later one).
    private var removedDevices = Set<String>()
    /// The sampling frequencies motiond wrote, by device and attribute, each with the value it
    /// found first: put back on stop (readers come and go with the clients' rates in between).
    private var rateChanges: [String: SamplingRate.Change] = [:]
    /// Devices udevd has not processed yet, with the boot time each was first seen so.
    private var unprocessedSince: [String: Double] = [:]
    /// The software triggers motiond made, by the device they sample: kept while the device is
    /// read (its readers come and go with the clients' rates), removed when it is no longer
    /// read, is lost, and at stop.
    private var softwareTriggers: [String: SoftwareTrigger] = [:]
    private var running = false

    private static let minimumRetryDelay = 1.0
    private static let maximumRetryDelay = 30.0
    /// How long a device udevd has not processed is left alone, seconds: its `add` rescans
    /// (with the hwdb mount matrix in place and the rule's permissions granted). A udevd that
    /// never gets to it (stuck, or stopped after it saw the device) does not hide it for longer.
    static let udevGrace = 10.0

    /// A reader in use and what it serves.
    private struct ActiveReader {
        var sensors: [SensorDescriptor]
        var period: Double
        /// How often it reads (a polled device) and delivers (one that keeps every reading):
        /// its period unless the request lets it sleep longer.
        var interval: Double
        var deliver: Double
        var reader: DeviceReader
        var identity: ReaderIdentity
        var kinds: Set<SensorKind> { Set(sensors.map(\.kind)) }

        /// Whether its device samples as it would for a reader started for `period` and
        /// `interval` (else the reader is replaced): a buffer samples slower at rest
        /// (``BufferedReader/samplingPeriod(period:interval:)``), a polled device at its period.
        func samples(period: Double, interval: Double) -> Bool {
            guard period == self.period else { return false }
            return reader.mode != .buffered
                || BufferedReader.samplingPeriod(period: period, interval: interval) == BufferedReader.samplingPeriod(period: period, interval: self.interval)
        }
    }

    /// Tells one reader from the one that replaced it on the same device.
    private final class ReaderIdentity: Sendable {}

    public init(uri: String, discovery: SensorDiscovery = SensorDiscovery(), logger: Logger) {
        self.uri = uri
        self.discovery = discovery
        self.logger = logger
    }

    /// Opens a context and runs discovery once, without reading anything (`--list-sensors`).
    public func discover() throws(SourceError) -> SensorDiscovery.Result {
        do {
            return discovery.discover(try IIOContext(uri: uri))
        } catch {
            throw .context(error)
        }
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        queue.assertNotOnQueue()
        queue.sync {
            delivery = (target, handler)
            self.request = request
            running = true
            slowReads = TickThread(name: "iio.slow")
            if uri.hasPrefix("local:") {
                monitor = HotplugMonitor(queue: queue) { [weak self] event in self?.hotplug(event) }
                if monitor == nil { logger.notice("udev monitor unavailable: hot-plug relies on periodic rescans") }
            }
            reconcile(rediscover: true)
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        queue.assertNotOnQueue()
        queue.sync {
            self.request = request
            reconcile(rediscover: false)
        }
    }

    public func stop() {
        queue.assertNotOnQueue()
        queue.sync {
            running = false
            monitor = nil
            retry?.cancel()
            retry = nil
            for (_, active) in readers { active.reader.stop() }
            readers = [:]
            slowReads?.stop()
            slowReads = nil
            removeSoftwareTriggers()
            restoreRates()
            delivery = nil
        }
    }

    // MARK: - Queue-confined work

    /// Availability changes go out synchronously, so they precede the first sample of a
    /// reader started after them (readers deliver synchronously too, from their threads).
    private func emit(_ event: SourceEvent) {
        queue.assertOnQueue()
        guard let delivery else { return }
        delivery.queue.assertNotOnQueue()
        delivery.queue.sync { delivery.handler([event]) }
    }

    /// Makes the running readers match the request: starts, restarts or stops readers, then
    /// reports every change of availability.
    private func reconcile(rediscover: Bool) {
        queue.assertOnQueue()
        guard running else { return }
        let wanted = request.periods
        if rediscover || (found == nil) || wanted.keys.contains(where: { kind in !readers.values.contains { $0.kinds.contains(kind) } }) {
            rescan()
        }

        // Per device: the sensors wanted from it, the fastest period asked of it, and how
        // often it must read and deliver (the shortest of its sensors).
        var desired: [String: (sensors: [SensorDescriptor], period: Double, interval: Double, deliver: Double)] = [:]
        for (kind, period) in wanted.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            // Keep the sensor being read unless discovery now prefers another (the display
            // accelerometer came back after the base one stood in).
            let current = readers.values.lazy.flatMap(\.sensors).first { $0.kind == kind }
            let preferred = found?.primary(kind)
            let chosen: SensorDescriptor? = if let preferred, preferred.device != current?.device { preferred } else { current ?? preferred }
            guard let sensor = chosen else { continue }
            let interval = request.wakeInterval(kind) ?? period, deliver = request.batchInterval(kind) ?? period
            var entry = desired[sensor.device] ?? ([], period, interval, deliver)
            entry.sensors.append(sensor)
            entry.period = min(entry.period, period)
            entry.interval = min(entry.interval, interval)
            entry.deliver = min(entry.deliver, deliver)
            desired[sensor.device] = entry
        }
        for (device, active) in readers {
            if let want = desired[device], Set(want.sensors.map(\.kind)) == active.kinds, active.samples(period: want.period, interval: want.interval) {
                // Only the pace changed: a reader that can follow keeps running.
                if want.interval == active.interval && want.deliver == active.deliver { continue }
                if active.reader.retime(read: want.interval, deliver: want.deliver) {
                    readers[device]?.interval = want.interval
                    readers[device]?.deliver = want.deliver
                    logger.debug("\(device): reading every \(SysfsNumber.format(want.interval * 1000)) ms, delivering every \(SysfsNumber.format(want.deliver * 1000)) ms")
                    continue
                }
            }
            active.reader.stop()
            readers[device] = nil
        }
        removeSoftwareTriggers(keeping: Set(desired.keys))
        // What no reader will serve is announced before any reader starts: samples go out from
        // the readers' threads at once, and a client may act on the first ones (motiond
        // --count 3 exits) before hearing that another kind is missing.
        let starting = desired.filter { readers[$0.key] == nil }
        publishAvailability(except: Set(starting.values.flatMap { $0.sensors.map(\.kind) }))
        for (deviceID, want) in starting.sorted(by: { $0.key < $1.key }) {
            startReader(deviceID, sensors: want.sensors, period: want.period, interval: want.interval, deliver: want.deliver)
        }
        publishAvailability()
        scheduleRetryIfNeeded()
    }

    private func rescan() {
        queue.assertOnQueue()
        do {
            let context = try IIOContext(uri: uri)
            self.context = context
            // Devices being read are not probed again (drivers refuse `_raw` reads while their
            // buffer runs): their previous descriptors stand.
            var keep: [String: [SensorDescriptor]] = [:]
            for (deviceID, active) in readers {
                keep[deviceID] = found?.sensors.filter { $0.device == deviceID } ?? active.sensors
            }
            found = discovery.discover(context, keeping: keep)
            found?.sensors.removeAll { removedDevices.contains($0.device) }
            awaitUdev()
        } catch {
            context = nil
            found = nil
            report("context", "cannot open IIO context \(uri): \(error)")
            return
        }
        for skipped in found?.skipped ?? [] {
            report(skipped.description, skipped.description)
        }
        for sensor in found?.sensors ?? [] {
            if described.insert(sensor.findings).inserted { logger.debug("found \(sensor.findings)", metadata: Self.metadata(sensor.device, [sensor.kind])) }
            for note in sensor.mountMatrix.notes { report("\(sensor.device) \(note)", "\(sensor.summary): \(note)") }
        }
    }

    /// Leaves out the devices udevd has not processed yet, for up to ``udevGrace`` each: read
    /// now, a device would lose its hwdb mount matrix for as long as it is read, and its buffer
    /// may still be root-only.
    private func awaitUdev() {
        let unprocessed = found?.unprocessed ?? []
        unprocessedSince = unprocessedSince.filter { unprocessed.contains($0.key) }
        let now = BootClock.now()
        for device in unprocessed.sorted() {
            let since = unprocessedSince[device] ?? now
            unprocessedSince[device] = since
            if now - since < Self.udevGrace {
                if since == now { logger.info("\(device): udev has not processed it yet; waiting for it", metadata: ["device": "\(device)"]) }
                found?.sensors.removeAll { $0.device == device }
            } else {
                report("\(device) unprocessed", "udev has not processed \(device) in \(SysfsNumber.format(Self.udevGrace)) s: using it without its udev properties")
            }
        }
    }

    /// Logs a warning (or another level) once per distinct situation, so rescans do not repeat it.
    private func report(_ key: String, _ message: String, level: Logger.Level = .warning) {
        guard reported.insert(key).inserted else { return }
        logger.log(level: level, "\(message)")
    }

    /// The software trigger for a device planned buffered whose buffer has no trigger of its own
    /// (``SoftwareTrigger``), made or taken up and set to `period`; `nil` when it needs none or
    /// none can be had (said once: the buffer is then probed, and the device polled).
    private func softwareTrigger(for device: IIODevice, sensors: [SensorDescriptor], period: Double, among devices: [IIODevice]) -> SoftwareTrigger? {
        let name = SoftwareTrigger.name(for: device.id)
        switch BufferTrigger.find(for: device, among: devices) {
        case .none: break
        case .attached(let attached) where attached == name: break
        default: return nil
        }
        if let why = discovery.withoutSoftwareTrigger(device) {
            report("software trigger: \(why)", "devices with a buffer but no trigger of their own (\(device)) get no software trigger: \(why); their buffers are probed and they are polled", level: .notice)
            return nil
        }
        do {
            let trigger = try softwareTriggers[device.id] ?? SoftwareTrigger.make(for: device.id, roots: discovery.softwareTriggerRoots)
            if softwareTriggers[device.id] == nil {
                logger.info("made the hrtimer software trigger \(trigger.name) (\(trigger.device)) for \(device)", metadata: Self.metadata(device.id, sensors.map(\.kind)))
            }
            softwareTriggers[device.id] = trigger
            try trigger.setPeriod(period)
            return trigger
        } catch {
            report("software trigger \(device.id) \(error)", "\(device): no software trigger (\(error)); its buffer is probed and it is polled", level: .notice)
            return nil
        }
    }

    /// Removes the software triggers of the devices not in `keeping` (detached first, where the
    /// device is still there).
    private func removeSoftwareTriggers(keeping: Set<String> = []) {
        for deviceID in softwareTriggers.keys.sorted() where !keeping.contains(deviceID) {
            removeSoftwareTrigger(of: deviceID)
        }
    }

    /// Removes the software trigger of one device, if it has one.
    private func removeSoftwareTrigger(of deviceID: String) {
        guard let trigger = softwareTriggers.removeValue(forKey: deviceID) else { return }
        do {
            try trigger.remove(from: deviceID, roots: discovery.softwareTriggerRoots)
            logger.info("removed the software trigger \(trigger.name)", metadata: ["device": "\(deviceID)"])
        } catch {
            logger.notice("cannot remove the software trigger \(trigger.name): \(error)", metadata: ["device": "\(deviceID)"])
        }
    }

    private func startReader(_ deviceID: String, sensors: [SensorDescriptor], period: Double, interval: Double, deliver: Double) {
        queue.assertOnQueue()
        guard let context, let device = context.device(named: deviceID), let delivery else { return }
        // Samples go straight to the consumer's queue, from the reader's thread: a rescan here
        // never delays them. A loss names its reader, so a late report cannot stop the reader
        // that replaced it.
        let identity = ReaderIdentity()
        let output = ReaderOutput(
            emit: { events in
                guard !events.isEmpty else { return }
                delivery.queue.sync { delivery.handler(events) }
            },
            lost: { [weak self] reason in
                guard let self else { return }
                queue.async { self.lost(deviceID, reason, identity: identity) }
            })
        let what = sensors.map(\.kind.rawValue).joined(separator: ", ")
        var buffered: BufferedReader?
        // At rest a buffered device itself samples slower (its reports and the kernel's pushes
        // drop too); moving and resting reopen the buffer anyway, its batch changing.
        let sampling = BufferedReader.samplingPeriod(period: period, interval: interval)
        if sensors.allSatisfy({ $0.readMode == .buffered }) {
            let software = softwareTrigger(for: device, sensors: sensors, period: sampling, among: context.devices)
            do {
                buffered = try BufferedReader(device: device, sensors: sensors, period: sampling,
                                              batch: BufferedReader.batch(interval: deliver, period: sampling), deliver: deliver,
                                              devices: context.devices, softwareTrigger: software, sensorProxy: discovery.sensorProxy,
                                              slow: slowReads, output: output, logger: logger)
            } catch {
                logger.notice("\(device): \(error); polling \(what) through sysfs instead", metadata: Self.metadata(deviceID, sensors.map(\.kind)))
                removeSoftwareTrigger(of: deviceID)
            }
        }
        let rates = buffered?.rates ?? SamplingRate.apply(period: period, to: device, sensors: sensors, exclusive: false, logger: logger)
        recordRates(rates.changes)
        // A buffered device delivers every scan: at its frequency in force, which a driver's
        // list may make a little faster than asked (52 Hz for 50). A polled one reads at `period`.
        let delivered: (SensorDescriptor) -> Double? = { sensor in buffered == nil ? nil : rates.period(of: sensor) }
        let reader: DeviceReader = buffered
            ?? PollingReader(device: device, sensors: sensors, period: period, interval: interval, slow: slowReads, output: output, logger: logger)
        // A polled light or proximity sensor's long interval is its pace, not a rest rate.
        let paced = buffered == nil && !sensors.contains(where: \.kind.isMotion)
        let pace = buffered.map { $0.batch > 1 ? ", \($0.batch) scans per wake-up" : "" }
            ?? (interval > period && !paced ? " (at rest: every \(SysfsNumber.format(interval * 1000)) ms)" : "")
        // A device discovery planned to poll says why (no scan elements, a buffer another program
        // such as iio-sensor-proxy reads); a failed buffer setup said so above.
        let why = buffered == nil ? sensors.first(where: { $0.readMode == .polling }).map { " (\($0.readModeReason))" } ?? "" : ""
        let every = paced ? interval : sensors.lazy.compactMap(delivered).first ?? period
        logger.info("reading \(what) from \(device), \(reader.mode), every \(SysfsNumber.format((every * 10_000).rounded() / 10)) ms\(pace)\(why)",
                    metadata: Self.metadata(deviceID, sensors.map(\.kind)))
        readers[deviceID] = ActiveReader(sensors: sensors, period: period, interval: interval, deliver: deliver,
                                         reader: reader, identity: identity)
        // Availability is announced before the first sample can arrive.
        for sensor in sensors {
            setAvailability(sensor.kind, SensorAvailability(isAvailable: true, reason: "reading \(sensor.summary)", mode: reader.mode,
                                                                 location: sensor.location, period: delivered(sensor),
                                                                 specificForce: sensor.mountMatrix.specificForce))
        }
        do {
            try reader.start()
        } catch {
            lost(deviceID, "no thread to read it on (\(error))", identity: identity)
        }
    }

    /// Remembers the frequency writes of a reader's setup; the first one per attribute holds
    /// what the device had before motiond.
    private func recordRates(_ changes: [SamplingRate.Change]) {
        for change in changes where rateChanges[change.key] == nil { rateChanges[change.key] = change }
    }

    /// Puts back every sampling frequency motiond changed, on devices still present.
    private func restoreRates() {
        defer { rateChanges = [:] }
        guard let context else { return }
        for change in rateChanges.values.sorted(by: { $0.key < $1.key }) {
            do throws(IIOError) {
                try change.restore(in: context)
                logger.info("restored \(change.attribute.attribute) of \(change.device) to \(change.previous)", metadata: ["device": "\(change.device)"])
            } catch {
                logger.notice("cannot restore \(change.attribute.attribute) of \(change.device): \(error)", metadata: ["device": "\(change.device)"])
            }
        }
    }

    /// Forgets what motiond changed on a device udev removed (its next instance starts anew; a
    /// device that only failed keeps its record, as the value motiond found is still the one).
    private func forgetRates(_ deviceID: String) {
        rateChanges = rateChanges.filter { $0.value.device != deviceID }
    }

    /// A reader's device is gone: `reason` is what its reader saw, or `nil` for a udev removal.
    private func lost(_ deviceID: String, _ reason: String?, identity: ReaderIdentity? = nil) {
        queue.assertOnQueue()
        guard let active = readers[deviceID], identity == nil || active.identity === identity else { return }
        readers[deviceID] = nil
        active.reader.stop()
        removeSoftwareTrigger(of: deviceID)
        // Gone until a rescan finds it again: not offered as present-but-idle meanwhile.
        found?.sensors.removeAll { $0.device == deviceID }
        let message: Logger.Message = "lost \(active.kinds.map(\.rawValue).sorted().joined(separator: ", ")) on \(deviceID): \(reason ?? "udev removed it"); waiting for the device to come back"
        let metadata = Self.metadata(deviceID, active.kinds)
        if lostDevices.insert(deviceID).inserted {
            logger.warning(message, metadata: metadata)
        } else {
            logger.debug(message, metadata: metadata)
        }
        let why = reason.map { "\(deviceID) stopped answering: \($0)" } ?? "\(deviceID) was removed (udev)"
        for kind in active.kinds {
            setAvailability(kind, SensorAvailability(isAvailable: false, reason: why))
        }
        // No immediate restart: a device that still lists but fails would spin. A udev add or
        // a retry, from the shortest delay again, rescans.
        retry?.cancel()
        retry = nil
        retryDelay = Self.minimumRetryDelay
        scheduleRetryIfNeeded()
    }

    private func hotplug(_ event: HotplugMonitor.Event) {
        queue.assertOnQueue()
        // Triggers carry no sensors (the ones motiond makes come and go as it reads).
        if event.sysname.hasPrefix("trigger") { return }
        logger.debug("udev \(event.action) \(event.sysname)", metadata: ["device": "\(event.sysname)"])
        lostDevices.remove(event.sysname)
        switch event.action {
        case "remove":
            removedDevices.insert(event.sysname)
            forgetRates(event.sysname)
            if readers[event.sysname] != nil {
                lost(event.sysname, nil)
            } else {
                // An idle sensor offered from it says why it went (another may stand in).
                for sensor in found?.sensors ?? [] where sensor.device == event.sysname && found?.primary(sensor.kind) == sensor {
                    setAvailability(sensor.kind, SensorAvailability(isAvailable: false, reason: "\(event.sysname) was removed (udev)"))
                }
                reconcile(rediscover: true)
            }
        case "add":
            removedDevices.remove(event.sysname)
            retryDelay = Self.minimumRetryDelay
            if let active = readers.removeValue(forKey: event.sysname) {
                // Read before udev got to it (a rescan found it first, or udev's database
                // entry was a stale one): probed again now that the rules gave it its group
                // and the hwdb its mount matrix.
                logger.info("\(event.sysname): udev has processed it since it was opened; opening it again",
                            metadata: Self.metadata(event.sysname, active.kinds))
                active.reader.stop()
            }
            reconcile(rediscover: true)
        default:
            break
        }
    }

    /// Log metadata naming a device and the sensor kinds read from it: `device`, and `sensor`
    /// as a list (the journal gets one `MOTIOND_SENSOR` field per kind).
    private static func metadata(_ deviceID: String, _ kinds: some Sequence<SensorKind>) -> Logger.Metadata {
        ["device": "\(deviceID)", "sensor": .array(kinds.map(\.rawValue).sorted().map { .string($0) })]
    }

    /// Announces every kind no reader serves (but those in `starting`, about to get one).
    private func publishAvailability(except starting: Set<SensorKind> = []) {
        for kind in SensorKind.allCases where !starting.contains(kind) && !readers.values.contains(where: { $0.kinds.contains(kind) }) {
            if request.periods[kind] == nil, let sensor = found?.primary(kind) {
                // Present but not requested: available, idle (no mode).
                setAvailability(kind, SensorAvailability(isAvailable: true, reason: "found \(sensor.summary), idle", location: sensor.location,
                                                         specificForce: sensor.mountMatrix.specificForce))
            } else {
                // Why it is missing stays what it was (a removal, a failing device).
                let reason = availability[kind].flatMap { $0.isAvailable ? nil : $0.reason } ?? "no \(kind) found on \(uri)"
                setAvailability(kind, SensorAvailability(isAvailable: false, reason: reason))
            }
        }
    }

    private func setAvailability(_ kind: SensorKind, _ value: SensorAvailability) {
        queue.assertOnQueue()
        guard availability[kind] != value else { return }
        availability[kind] = value
        emit(.availability(kind, value))
    }

    /// Retries discovery with backoff while a requested kind is not being read.
    private func scheduleRetryIfNeeded() {
        let missing = request.periods.keys.contains { kind in !readers.values.contains { $0.kinds.contains(kind) } }
        guard missing else {
            retry?.cancel()
            retry = nil
            retryDelay = Self.minimumRetryDelay
            return
        }
        guard retry == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + retryDelay)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            retry = nil
            retryDelay = min(retryDelay * 2, Self.maximumRetryDelay)
            reconcile(rediscover: true)
        }
        timer.resume()
        retry = timer
    }
}
