import Dispatch
import Logging
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync

/// The daemon's one serial queue, `motiond.pipeline`: every sample goes through the motion
/// engine and the detectors here, the latest value of every stream is kept here, and the
/// ``Publisher`` turns them into messages for the subscribers. Nothing here blocks: messages
/// leave through non-blocking socket writes (`outbox`) or to the daemon's own subscribers,
/// which hand anything slow to queues of their own; source reconfiguration runs on `control`,
/// state saving on the ``EngineStateSaver``'s queue, the code-page and heap release on `housekeeping`.
///
/// One wake-up per burst: a source's reading thread submits a burst (a tick's readings, a
/// buffer's scans) with `queue.sync`, so the engine, the detectors and the hand-over to the
/// clients' sockets all run on that thread, and every message of the burst leaves in one
/// batch. The ordering rule (docs/ARCHITECTURE.md): a reader calls into this queue
/// synchronously; this queue calls the source only asynchronously, through `control`.
///
/// Sensors follow the subscriptions (``SensorDemand``): exactly the sensors they need, at the
/// shortest interval any wants, nothing when nobody subscribes, the rest rate while the device
/// lies still (``RestRate``). Recipients are socket clients and the daemon's own subscribers
/// (``LocalSubscriber``), which subscribe through ``attach(_:as:subscriptions:)`` and
/// ``subscribe(_:to:)``.
///
/// `@unchecked Sendable`: the mutable state below is confined to `queue` — every entry point
/// submits to it and the source delivers on it, and each confined method begins with
/// `queue.assertOnQueue()` (checked in debug builds); source (re)configuration is confined to
/// `control`; the rest is constant. `make check-tsan` runs the daemon's tests on it.
final class Pipeline: @unchecked Sendable {
    let queue = DispatchQueue(label: "motiond.pipeline")
    /// Starts, updates and stops the source in order, off the pipeline queue (opening a
    /// buffered device can take hundreds of milliseconds).
    private let control = DispatchQueue(label: "motiond.source-control")
    /// Gives the code pages back at rest. A serial queue of its own at the default QoS: a
    /// global queue's worker would start libdispatch's workqueue monitor, which then wakes the
    /// daemon once a second for good (measured: 3.9 instead of 2.9 wake-ups/s at rest), and a
    /// utility worker is reniced, which libdispatch's renicing back is refused (EACCES) and
    /// logged to the journal each time.
    private let housekeeping = DispatchQueue(label: "motiond.code-pages")
    private let source: MotionSource
    let logger: Logger
    private let log: EngineEventLog
    private let started = BootClock.now()

    // Confined to `queue`. `publisher`, `router` and the helpers `send`, `subscribe`,
    // `unsubscribe` and `remove` (like `logger` above) are internal for
    // Pipeline+LocalSubscribers.swift.
    private var engine: MotionEngine
    var publisher: Publisher
    private var sensors: SensorStates
    private var latest: [SensorKind: Sample] = [:]
    private var request = SourceRequest.none
    /// Seconds between readings at rest (0: never slower than the subscriptions ask).
    private var restInterval: Double
    private var restRate = RestRate()
    private var pulls = PullThrottle()
    var router = MessageRouter()
    private var clientCount: @Sendable () -> Int = { 0 }
    /// Keeps `systemctl status` current (nil when not run by systemd).
    private var notifier: SystemdNotifier?
    private var statusLine = StatusLine()
    private var watchdog: DispatchSourceTimer?
    private var saver: EngineStateSaver?

    /// `allowed`: the sensors the daemon may use at all (`--sensors`); `restInterval`: seconds
    /// between readings of a still accelerometer (0: off).
    init(source: MotionSource, engine: MotionEngine, detectors: DetectorConfiguration, allowed: Set<SensorKind>,
         restInterval: Double = 0, store: EngineStateStore?, logger: Logger) {
        self.source = source
        self.engine = engine
        publisher = Publisher(detectors: detectors)
        sensors = SensorStates(allowed: allowed)
        self.restInterval = restInterval
        saver = store.map { EngineStateSaver(store: $0) }
        self.logger = logger
        log = EngineEventLog(logger: logger)
    }

    /// Starts the source with what the subscriptions made so far need. Socket clients'
    /// messages go to `outbox` (on the pipeline's queue, usually a reading thread); `clients`
    /// counts the connected clients (for `status` and the status line).
    func start(clients: @escaping @Sendable () -> Int = { 0 }, outbox: @escaping @Sendable ([Addressed]) -> Void) throws(SourceError) {
        queue.assertNotOnQueue()
        let initial = queue.sync {
            router.outbox = outbox
            clientCount = clients
            request = SensorDemand.request(publisher.needs, allowed: sensors.allowed)
            return request
        }
        let result: Result<Void, SourceError> = control.sync {
            do throws(SourceError) {
                try source.start(initial, queue: queue) { [unowned self] events in handle(events) }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        logger.info("motiond reading \(source.uri)\(initial.readingSummary)")
    }

    /// Stops the source (buffers disabled, triggers detached) and saves the engine state. Call
    /// from any queue but the pipeline's.
    func stop() {
        queue.assertNotOnQueue()
        control.sync { source.stop() }
        let (saver, state) = queue.sync {
            watchdog?.cancel()
            return (self.saver, engine.persistentState)
        }
        saver?.save(state)
    }

    /// Keeps `systemctl status` current — updated when clients, sensors or rates change, not
    /// on a timer — and, when systemd wants a watchdog, pings it from this queue (a stalled
    /// pipeline stops the pings and gets the service restarted). Nothing periodic runs when
    /// systemd did not start the daemon.
    func startHousekeeping(notifier: SystemdNotifier) {
        queue.async { [self] in
            self.notifier = notifier
            refreshStatus()
            watchdog = notifier.startWatchdog(on: queue)
        }
    }

    /// The line for `systemctl status` now, from any queue but the pipeline's.
    func currentStatusLine() -> String {
        queue.assertNotOnQueue()
        return queue.sync { statusText() }
    }

    /// New engine settings, detector parameters or rest interval (a configuration reload). The
    /// engine is rebuilt only when its settings changed, keeping what it learned (bias,
    /// calibration); its attitude converges again within a second or two.
    func reconfigure(engine configuration: MotionEngine.Configuration, detectors: DetectorConfiguration, restInterval: Double) {
        queue.async { [self] in
            self.restInterval = restInterval
            updateDemand()
            if configuration != engine.configuration {
                let present = engine.magnetometerPresent
                engine = MotionEngine(configuration: configuration, restoring: engine.persistentState)
                engine.magnetometerPresent = present
                logger.notice("motion engine reconfigured; frames now \(engine.availableFrames.names.joined(separator: ", "))")
            }
            publisher.replaceDefaultDetectors(detectors)
        }
    }

    // MARK: - Socket clients (called from the server's queue)

    /// A client connected with what the access policy `grant`s it: it gets the hello.
    func connected(_ client: ClientID, grant: AccessGrant) {
        queue.async { [self] in
            send([.client(client, OutgoingMessage(.hello(replies.hello(grant))))])
            refreshStatus()
        }
    }

    /// A request to answer. `grant`: what the client may receive (the server keeps it with the
    /// connection).
    func received(_ request: ClientRequest, from client: ClientID, grant: AccessGrant) {
        queue.async { [self] in
            var out: [Addressed] = []
            answer(request, from: client, grant: grant, into: &out)
            send(out)
        }
    }

    /// Whether the client holds any subscription, answered to `answer` on the pipeline's
    /// queue after every request handed on before this call (a half-closed client whose
    /// requests are all answered: is anything still to be pushed to it?).
    func hasSubscriptions(_ client: ClientID, answer: @escaping @Sendable (Bool) -> Void) {
        queue.async { [self] in answer(publisher.hasSubscriptions(.client(client))) }
    }

    /// A client went away: its subscriptions end, and sensors nobody needs any more stop.
    func disconnected(_ client: ClientID) {
        queue.async { [self] in
            pulls.forget(client)
            remove(.client(client))
        }
    }

    // MARK: - Queue-confined work

    /// What the pipeline answers from its state now.
    private var replies: PipelineReplies {
        PipelineReplies(engine: engine, publisher: publisher, sensors: sensors, request: request, latest: latest)
    }

    /// Hands messages on at once, on the calling thread: the messages of one burst (a source's
    /// readings, a request's reply) as one batch.
    func send(_ out: [Addressed]) {
        queue.assertOnQueue()
        router.send(out)
    }

    /// One burst from the source: every event in order, then everything it caused as one
    /// batch; then the learned state is offered for saving (checked with the samples, never on
    /// a timer of its own). At rest, a batch's still scans are passed over but for each sensor's
    /// newest (``RestRate/worthHandling(_:resting:)``): a buffered sensor costs what a polled one
    /// does.
    private func handle(_ events: [SourceEvent]) {
        queue.assertOnQueue()
        var out: [Addressed] = []
        var availabilityChanged = false
        for event in restRate.worthHandling(events, resting: request.wakeIntervals.keys) {
            if case .availability = event { availabilityChanged = true }
            handle(event, into: &out)
        }
        send(out)
        if availabilityChanged { refreshStatus() }
        saver?.offer(now: BootClock.now()) { engine.persistentState }
    }

    private func handle(_ event: SourceEvent, into out: inout [Addressed]) {
        switch event {
        case .sample(let sample):
            // Decimation goes by the actual spacing of this sensor's samples (Decimator: its
            // median over three, beside the running average it measures): hardware may run
            // faster than asked (the nearest available rate), replays at their own rate.
            let spacing = latest[sample.kind].map { sample.timestamp - $0.timestamp } ?? 0
            let period = spacing > 0 && spacing <= Wire.hardwarePeriods.upperBound
                ? spacing : request.periods[sample.kind] ?? Wire.hardwarePeriods.upperBound
            latest[sample.kind] = sample
            // The gap before a sample read at the rest rate is one the daemon chose, not an
            // outage: the interval in force when it was read (before the sample may end the
            // rest), or the motion events' check where the reader sleeps on them.
            // The base's is its rest interval alone: the hinge reports its last measurement as
            // current for that long, and should not for the motion events' longer check.
            switch sample.kind {
            case .accelerometer:
                engine.readingInterval = request.wakeIntervals[.accelerometer].map { max($0, SourceRequest.restEventCheck) } ?? 0
            case .baseAccelerometer: engine.baseReadingInterval = request.wakeIntervals[.baseAccelerometer] ?? 0
            default: break
            }
            if RestRate.deciding[sample.kind] != nil { followRest(sample) }
            if let event = engine.update(sample) {
                log.engine(event, engine: engine)
                if case .calibrationAccuracyChanged(_, let accuracy) = event {
                    publisher.broadcast(.calibration(accuracy: accuracy, calibrationNeeded: engine.status.calibrationNeeded),
                                        to: .calibration, into: &out)
                }
            }
            let notes = publisher.publish(sample, engine: engine, period: period, into: &out)
            log.detectorEvents(notes.events)
            log.deviceMotion(notes.deviceMotion)
        case .availability(let kind, let availability):
            if kind == .magnetometer { engine.magnetometerPresent = availability.isAvailable && sensors.allowed.contains(kind) }
            log.availability(kind, sensors.logged(kind, availability), changed: sensors.record(kind, availability))
            publisher.broadcast(.availability(kind, sensors.state(kind, reading: request)), to: .availability, into: &out)
            let hingeGyroscopes = SensorDemand.hingeGyroscopes.allSatisfy(sensors.isUsable)
            if hingeGyroscopes != publisher.hingeGyroscopes {
                publisher.hingeGyroscopes = hingeGyroscopes
                updateDemand()
            }
        }
    }

    private func answer(_ request: ClientRequest, from client: ClientID, grant: AccessGrant, into out: inout [Addressed]) {
        let recipient = Recipient.client(client)
        var current: [ServerMessage] = []
        let result: Result<ServerMessage.Reply, ProtocolError>
        do throws(ProtocolError) {
            switch try grant.admit(request) {
            case .subscribe(let wanted):
                let subscribed = try subscribe(recipient, to: wanted, into: &out)
                current = subscribed.current
                let subscription = subscribed.subscription
                result = .success(.subscribed(interval: subscription.interval, available: replies.isAvailable(subscription),
                                              latency: subscription.latency))
            case .unsubscribe(_, let stream):
                try unsubscribe(recipient, from: stream, into: &out)
                result = .success(.unsubscribed)
            case .get(_, let stream, let frame, let orientation):
                let pulled = try replies.latestValue(stream, frame: frame, orientation: orientation, for: recipient)
                let value = grant.capsRate
                    ? pulls.throttled(pulled, .init(stream: stream, frame: frame, orientation: orientation), for: client,
                                      minimumInterval: grant.minimumInterval)
                    : pulled
                result = .success(.value(value, age: PipelineReplies.age(of: value, now: BootClock.now())))
            case .status:
                result = .success(.status(replies.status(source: source.uri, uptime: BootClock.now() - started, clients: clientCount())))
            }
        } catch {
            result = .failure(error)
            logger.debug("\(client): \(error)", metadata: ["client": "\(client)", "error_code": "\(error.code.rawValue)"])
        }
        out.append(.client(client, OutgoingMessage(.reply(id: request.id, result))))
        for message in current { out.append(.client(client, OutgoingMessage(message))) }
    }

    /// Adds (or replaces) a subscription; returns it with what its subscriber learns at once.
    func subscribe(_ recipient: Recipient, to wanted: ClientRequest.Subscription,
                           into out: inout [Addressed]) throws(ProtocolError) -> (subscription: Subscription, current: [ServerMessage]) {
        queue.assertOnQueue()
        let subscription = try publisher.subscribe(wanted, recipient: recipient, engine: engine, into: &out)
        logger.debug("\(recipient) subscribed to \(wanted.stream) every \(subscription.interval) s")
        updateDemand()
        return (subscription, replies.currentState(of: wanted.stream, for: subscription))
    }

    func unsubscribe(_ recipient: Recipient, from stream: StreamName, into out: inout [Addressed]) throws(ProtocolError) {
        queue.assertOnQueue()
        try publisher.unsubscribe(stream, recipient: recipient, into: &out)
        logger.debug("\(recipient) unsubscribed from \(stream)")
        updateDemand()
        releaseServedCode()
    }

    /// A recipient went away: its subscriptions end, and sensors nobody needs any more stop.
    func remove(_ recipient: Recipient) {
        queue.assertOnQueue()
        publisher.remove(recipient)
        updateDemand()
        releaseServedCode()
        refreshStatus()
    }

    /// A subscriber left while the device rests: what serving it faulted in (its requests,
    /// the D-Bus face's claims, a status) goes two rest readings later, as when the rest began.
    private func releaseServedCode() {
        guard restRate.atRest, let t = latest[.accelerometer]?.timestamp else { return }
        restRate.scheduleCodeRelease(at: t, wakeInterval: request.wakeIntervals[.accelerometer])
    }

    /// Moves between the full and the rest rate as the sensors that decide it start and stop
    /// moving.
    private func followRest(_ sample: Sample) {
        let decision = restRate.follow(sample, reading: request.periods.keys)
        // Reading /proc/self/smaps takes milliseconds: not on the sample path.
        if decision.releaseCodePages { releaseMemory() }
        guard decision.restChanged else { return }
        updateDemand()
        restRate.scheduleCodeRelease(at: sample.timestamp, wakeInterval: request.wakeIntervals[.accelerometer])
    }

    /// Asks the source for what the subscriptions need now.
    private func updateDemand() {
        queue.assertOnQueue()
        var wanted = SensorDemand.batching(SensorDemand.request(publisher.needs, allowed: sensors.allowed), publisher.latencies)
        if restRate.atRest && publisher.toleratesRestRate { wanted = SensorDemand.resting(wanted, interval: restInterval) }
        guard wanted != request else { return }
        if request.periods[.accelerometer] != nil && wanted.periods[.accelerometer] == nil { publisher.resetDetectors() }
        for kind in RestRate.deciding.keys where request.periods[kind] != nil && wanted.periods[kind] == nil { restRate.stopped(kind) }
        if request.periods[.proximity] != nil && wanted.periods[.proximity] == nil { publisher.resetProximity() }
        request = wanted
        log.sensors(wanted)
        refreshStatus()
        control.async { [self, wanted] in
            do {
                try source.update(wanted)
            } catch {
                logger.error("cannot change what \(source.uri) reads: \(error)")
            }
            // Nothing to read any more (the last client left): nothing runs until one comes,
            // so what serving needed need not stay resident.
            if wanted.periods.isEmpty { releaseMemory() }
        }
    }

    /// Gives back the code pages and the heap's free pages, on `housekeeping` (reading
    /// /proc/self/smaps takes milliseconds: never on the sample path).
    private func releaseMemory() {
        housekeeping.async {
            CodePages.release()
            Heap.trim()
        }
    }

    private func statusText() -> String {
        StatusLine.text(clients: clientCount(), reading: request, missing: sensors.missing(reading: request))
    }

    /// Sends the status line to systemd if it changed.
    private func refreshStatus() {
        queue.assertOnQueue()
        guard let notifier, let text = statusLine.update(statusText()) else { return }
        notifier.status(text)
    }
}
