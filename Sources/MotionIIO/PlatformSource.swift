import Dispatch
import Logging
import MotionCore
import MotionSync

/// The source for the sensors outside IIO that iio-sensor-proxy reads (``PlatformSensor``):
/// input accelerometers, input proximity switches, hwmon light. One ``PeriodicThread`` per
/// sensor in use reads it every wake interval of its kind (``SourceRequest/wakeInterval(_:)``:
/// the accelerometer's period or rest interval, the light and proximity subscriptions' pace);
/// a sensor nobody asks for is closed and reported idle. It reports only the kinds it found:
/// a machine's IIO sensors are ``IIOSource``'s, and ``LocalSource`` serves both.
///
/// Discovery runs at start and when a kind whose device stopped answering is asked for again
/// (at the next change of request); there is no hot-plug of these devices
/// (built into the machines that have them). All bookkeeping runs on one serial queue; the
/// readers deliver from their threads.
// @unchecked: the `var`s below are confined to `queue` (start, update and stop enter it with
// `sync`, a reader's loss report with `async`), as in IIOSource.
public final class PlatformSource: MotionSource, @unchecked Sendable {
    public let uri: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "motiond.platform")

    // Everything below is confined to `queue`.
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var request = SourceRequest.none
    private var sensors: [PlatformSensor] = []
    private var readers: [SensorKind: Reader] = [:]
    private var availability: [SensorKind: SensorAvailability] = [:]
    /// Kinds whose device stopped answering: looked for again when next asked for.
    private var lostKinds = Set<SensorKind>()
    private var reported = Set<String>()
    private var running = false

    private struct Reader {
        var sensor: PlatformSensor
        var thread: PeriodicThread
        var identity: ReaderIdentity
    }

    /// Tells one reader from the one that replaced it.
    private final class ReaderIdentity: Sendable {}

    /// What a reader's thread keeps between ticks.
    private struct TickState {
        var reading: PlatformReading
        var fault = FaultEpisode()
    }

    public init(uri: String = "local:", logger: Logger) {
        self.uri = uri
        self.logger = logger
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        queue.sync {
            delivery = (target, handler)
            self.request = request
            running = true
            reconcile(rediscover: true)
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        queue.sync {
            self.request = request
            reconcile(rediscover: false)
        }
    }

    public func stop() {
        queue.sync {
            running = false
            for reader in readers.values { reader.thread.stop() }
            readers = [:]
            delivery = nil
        }
    }

    // MARK: - Queue-confined work

    private func reconcile(rediscover: Bool) {
        guard running else { return }
        if rediscover || request.periods.keys.contains(where: lostKinds.contains) {
            let found = PlatformDiscovery.discover()
            for skip in found.skipped where reported.insert(skip.description).inserted { logger.warning("\(skip)") }
            sensors = found.sensors
            lostKinds = []
        }
        for kind in SensorKind.allCases {
            guard let sensor = sensors.first(where: { $0.kind == kind }) else { continue }
            guard let interval = request.wakeInterval(kind) else {
                readers.removeValue(forKey: kind)?.thread.stop()
                setAvailability(kind, SensorAvailability(isAvailable: true, reason: "found \(sensor.summary), idle",
                                                         location: sensor.location, unit: sensor.unit))
                continue
            }
            if let reader = readers[kind] {
                reader.thread.setPeriod(interval)
            } else {
                startReader(sensor, interval: interval)
            }
        }
    }

    private func startReader(_ sensor: PlatformSensor, interval: Double) {
        guard let delivery else { return }
        let reading: PlatformReading
        do {
            reading = try sensor.open()
        } catch {
            // Tried again at the next change of request (a permission granted meanwhile).
            let reason = "cannot read \(sensor.summary): \(error)"
            if reported.insert(reason).inserted { logger.warning("\(reason)") }
            setAvailability(sensor.kind, SensorAvailability(isAvailable: false, reason: reason))
            return
        }
        let thread = PeriodicThread(name: "poll.\(sensor.syspath.split(separator: "/").last ?? "input")", period: interval)
        let identity = ReaderIdentity()
        let state = Lock(TickState(reading: reading))
        let (logger, kind, conversion, summary) = (self.logger, sensor.kind, sensor.conversion, sensor.summary)
        logger.info("reading \(summary), polling, every \(SysfsNumber.format(interval * 1000)) ms",
                    metadata: ["device": "\(sensor.syspath)", "sensor": .array([.string(kind.rawValue)])])
        // Availability is announced before the first sample can arrive.
        setAvailability(kind, SensorAvailability(isAvailable: true, reason: "reading \(summary)", mode: .polling,
                                                 location: sensor.location, unit: sensor.unit))
        readers[kind] = Reader(sensor: sensor, thread: thread, identity: identity)
        do {
            try thread.start { [weak self] in
                do throws(ReadFault) {
                    let raw = try state.withLock { state throws(ReadFault) in try state.reading.read() }
                    if let failed = state.withLock({ $0.fault.recovered() }) {
                        logger.notice("\(summary): reads again after \(failed) failed")
                    }
                    if let raw {
                        let sample = Sample(kind: kind, timestamp: BootClock.now(), vector: conversion.convert(raw: raw))
                        delivery.queue.sync { delivery.handler([.sample(sample)]) }
                    }
                    return true
                } catch {
                    if case .io(let failure) = error, failure.isDeviceGone {
                        if let source = self { source.queue.async { source.lost(kind, identity: identity, reason: "\(error)") } }
                        return false
                    }
                    if state.withLock({ $0.fault.occurred() }) { logger.warning("\(summary): \(error)") }
                    return true
                }
            }
        } catch {
            lost(kind, identity: identity, reason: "no thread to read it on (\(error))")
        }
    }

    /// A reader's device stopped answering: its kind is unavailable until a new request finds
    /// it again.
    private func lost(_ kind: SensorKind, identity: ReaderIdentity, reason: String) {
        guard let reader = readers[kind], reader.identity === identity else { return }
        readers[kind] = nil
        reader.thread.stop()
        sensors.removeAll { $0 == reader.sensor }
        lostKinds.insert(kind)
        logger.warning("lost \(reader.sensor.summary): \(reason)")
        setAvailability(kind, SensorAvailability(isAvailable: false, reason: "\(reader.sensor.syspath) stopped answering: \(reason)"))
    }

    private func setAvailability(_ kind: SensorKind, _ value: SensorAvailability) {
        guard availability[kind] != value, let delivery else { return }
        availability[kind] = value
        delivery.queue.sync { delivery.handler([.availability(kind, value)]) }
    }
}
