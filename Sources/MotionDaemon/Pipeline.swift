import Dispatch
import Logging
import MotionCore
import MotionIIO
import MotionProtocol

/// The daemon's one serial queue, `motiond.pipeline` (R9): every sample goes through the
/// motion engine and the detectors here, the latest value of every stream is kept here, and the
/// ``Publisher`` turns them into messages for the subscribers. Nothing here blocks on I/O:
/// messages leave through `outbox` (non-blocking socket writes, the printer's queue) and source
/// reconfiguration runs on its own queue.
///
/// One wake-up per burst: a source's reading thread submits a burst (a tick's readings, a
/// buffer's scans) with `queue.sync`, so the engine, the detectors and the hand-over to the
/// clients' sockets all run on that thread, and every message of the burst leaves in one
/// batch.
///
/// Sensors follow the subscriptions (R69): the source is asked for exactly the sensors they
/// need, at the shortest interval any of them wants (clamped to 10–100 ms), and for nothing
/// when nobody subscribes. While the accelerometer has lain ``Stillness`` still for a second
/// and every subscription tolerates it, it is read only every rest interval (the rest rate,
/// ``SensorDemand``); the first reading that moves asks for the full rate again at once.
///
/// `@unchecked Sendable`: the mutable state below is confined to `queue` (every entry point
/// submits to it; the source delivers on it), source (re)configuration to `control`; the rest
/// is constant. `make check-tsan` holds it to that with the socket and daemon tests.
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
    private let allowed: Set<SensorKind>
    private let store: EngineStateStore?
    private let logger: Logger
    private let started = BootClock.now()

    // Confined to `queue`.
    private var engine: MotionEngine
    private var publisher: Publisher
    private var sensors: [SensorKind: SensorAvailability] = [:]
    private var latest: [SensorKind: Sample] = [:]
    private var request = SourceRequest.none
    /// Seconds between readings at rest (0: never slower than the subscriptions ask).
    private var restInterval: Double
    /// The accelerometer's current still stretch, and whether it has lasted long enough to
    /// read at the rest rate.
    private var stillness = Stillness()
    /// A convertible's base accelerometer lying still (its display's is `stillness`).
    private var baseStillness = Stillness()
    private var atRest = false
    /// Sample time from which the code pages are given back, once per rest (nil: done).
    private var releaseCodeAt: Double?
    /// How long the accelerometer must lie still before the rest rate, seconds.
    static let restAfter = 1.0
    private var outbox: @Sendable ([Addressed]) -> Void = { _ in }
    private var timers: [DispatchSourceTimer] = []
    /// When the engine state was last offered to the store (boot-clock seconds).
    private var lastSaveCheck = BootClock.now()
    /// Keeps `systemctl status` current (nil when not run by systemd).
    private var statusReporter: (notifier: SystemdNotifier, clients: @Sendable () -> Int, shown: String)?
    /// Rate-capped clients: the last value each pulled per stream, returned again until a
    /// value at least the cap's interval newer exists.
    private var pulled: [ClientID: [PullKey: (timestamp: Double, value: ServerMessage)]] = [:]

    /// `allowed`: the sensors the daemon may use at all (`--sensors`); `restInterval`: seconds
    /// between readings of a still accelerometer (0: off).
    init(source: MotionSource, engine: MotionEngine, detectors: DetectorConfiguration, allowed: Set<SensorKind>,
         restInterval: Double = 0, store: EngineStateStore?, logger: Logger) {
        self.source = source
        self.engine = engine
        publisher = Publisher(detectors: detectors)
        self.allowed = allowed
        self.restInterval = restInterval
        self.store = store
        self.logger = logger
    }

    /// The daemon's own output (`--print-samples`, `--print-motion`) subscribes like a client,
    /// before `start`.
    func subscribeLocally(_ subscriptions: [Subscription]) {
        queue.sync {
            for subscription in subscriptions { publisher.add(subscription, client: .local) }
        }
    }

    /// Starts the source with what the subscriptions made so far need; messages go to `outbox`.
    func start(outbox: @escaping @Sendable ([Addressed]) -> Void) throws(SourceError) {
        let initial = queue.sync {
            self.outbox = outbox
            request = SensorDemand.request(publisher.needs, allowed: allowed)
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
        logger.info("motiond reading \(source.uri)\(describe(initial))")
    }

    /// Stops the source (buffers disabled, triggers detached) and saves the engine state. Call
    /// from any queue but the pipeline's.
    func stop() {
        control.sync { source.stop() }
        queue.sync {
            for timer in timers { timer.cancel() }
            store?.save(engine.persistentState)
        }
    }

    /// Keeps `systemctl status` current — updated when clients, sensors or rates change, not
    /// on a timer — and, when systemd wants a watchdog, pings it from this queue every half
    /// watchdog period (a stalled pipeline stops the pings and gets the service restarted).
    /// Nothing periodic runs when systemd did not start the daemon.
    func startHousekeeping(notifier: SystemdNotifier, clients: @escaping @Sendable () -> Int) {
        queue.async { [self] in
            statusReporter = (notifier, clients, "")
            refreshStatus()
            guard let watchdog = notifier.watchdogInterval else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: watchdog / 2, leeway: .milliseconds(Int(watchdog * 50)))
            timer.setEventHandler { notifier.watchdog() }
            timer.resume()
            timers.append(timer)
        }
    }

    /// Sends the status line to systemd if it changed.
    private func refreshStatus() {
        guard let reporter = statusReporter else { return }
        let text = statusLine(clients: reporter.clients())
        guard text != reporter.shown else { return }
        reporter.notifier.status(text)
        statusReporter?.shown = text
    }

    /// One line for `systemctl status`, from any queue but the pipeline's.
    func currentStatusLine(clients: Int) -> String {
        queue.sync { statusLine(clients: clients) }
    }

    /// One line for `systemctl status`: clients, the sensors being read, missing sensors.
    private func statusLine(clients: Int) -> String {
        let reading = Self.reading(request)
        let clientText = clients == 1 ? "1 client" : "\(clients) clients"
        let sensorText = reading.isEmpty ? "sensors idle" : reading.joined(separator: ", ")
        // A laptop without a proximity sensor (or a base accelerometer: it is no convertible) is
        // not missing anything until someone asks for one.
        let missing = SensorKind.allCases.filter { kind in
            sensors[kind]?.isAvailable == false && (SensorKind.motion.contains(kind) || request.periods[kind] != nil)
        }.map(\.rawValue)
        return "\(clientText); \(sensorText)" + (missing.isEmpty ? "" : "; no \(missing.joined(separator: ", "))")
    }

    // MARK: - Clients (called from the server's queue)

    /// A client connected with what the access policy `grant`s it: it gets the hello.
    func connected(_ client: ClientID, grant: AccessGrant) {
        queue.async { [self] in
            send([Addressed(client: client, message: OutgoingMessage(.hello(hello(grant))))])
            refreshStatus()
        }
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

    /// A request to answer; `clients` is the number of connected clients (for `status`).
    /// `grant`: what the client may receive (the server keeps it with the connection).
    func received(_ request: ClientRequest, from client: ClientID, grant: AccessGrant, clients: Int) {
        queue.async { [self] in
            var out: [Addressed] = []
            answer(request, from: client, grant: grant, clients: clients, into: &out)
            send(out)
        }
    }

    /// Whether the client holds any subscription, answered to `answer` on the pipeline's
    /// queue after every request handed on before this call (a half-closed client whose
    /// requests are all answered: is anything still to be pushed to it?).
    func hasSubscriptions(_ client: ClientID, answer: @escaping @Sendable (Bool) -> Void) {
        queue.async { [self] in answer(publisher.hasSubscriptions(client)) }
    }

    /// A client went away: its subscriptions end, and sensors nobody needs any more stop.
    func disconnected(_ client: ClientID) {
        queue.async { [self] in
            publisher.remove(client)
            pulled[client] = nil
            updateDemand()
            refreshStatus()
        }
    }

    // MARK: - Queue-confined work

    /// Hands messages on at once, on the calling thread: the messages of one burst (a source's
    /// readings, a request's reply) as one batch.
    private func send(_ out: [Addressed]) {
        guard !out.isEmpty else { return }
        outbox(out)
    }

    /// One burst from the source: every event in order, then everything it caused as one
    /// batch.
    private func handle(_ events: [SourceEvent]) {
        var out: [Addressed] = []
        var availabilityChanged = false
        for event in events {
            if case .availability = event { availabilityChanged = true }
            handle(event, into: &out)
        }
        send(out)
        if availabilityChanged { refreshStatus() }
        // Learned state is offered to the store as it changes (the store writes at most every
        // `minimumInterval`), so even a crash loses little calibration; checked with the
        // samples, never on a timer of its own.
        if let store {
            let now = BootClock.now()
            if now - lastSaveCheck >= min(store.minimumInterval, 5) {
                lastSaveCheck = now
                store.saveIfChanged(engine.persistentState, now: now)
            }
        }
    }

    private func handle(_ event: SourceEvent, into out: inout [Addressed]) {
        switch event {
        case .sample(let sample):
            // Decimation tolerates half the actual spacing of this sensor's samples: hardware
            // may run faster than asked (the nearest available rate), replays at their own rate.
            let spacing = latest[sample.kind].map { sample.timestamp - $0.timestamp } ?? 0
            let period = spacing > 0 && spacing <= Wire.hardwarePeriods.upperBound
                ? spacing : request.periods[sample.kind] ?? Wire.hardwarePeriods.upperBound
            latest[sample.kind] = sample
            if sample.kind == .accelerometer || sample.kind == .baseAccelerometer { followStillness(sample) }
            if let notice = engine.update(sample) { log(notice, into: &out) }
            let notes = publisher.publish(sample, engine: engine, period: period, into: &out)
            for event in notes.events { logger.debug("\(event.text)") }
            for (client, frame, unavailable) in notes.deviceMotion {
                // The daemon's own output says why it prints nothing; a client's reason is in `get`.
                let message: Logger.Message = unavailable.map { "no device motion for \(client): \($0)" }
                    ?? "device motion in \(frame) available for \(client)"
                if client == .local { logger.notice(message) } else { logger.debug(message) }
            }
        case .availability(let kind, let availability):
            if kind == .magnetometer { engine.magnetometerPresent = availability.isAvailable && allowed.contains(kind) }
            let changed = sensors[kind]?.isAvailable != availability.isAvailable
            sensors[kind] = availability
            let message: Logger.Message = "\(kind) \(availability.isAvailable ? "available" : "unavailable"): \(availability.reason)"
            let metadata: Logger.Metadata = ["sensor": "\(kind)"]
            if changed { logger.info(message, metadata: metadata) } else { logger.debug(message, metadata: metadata) }
            publisher.broadcast(.availability(kind, state(kind)), to: .availability, into: &out)
            let hingeGyroscopes = SensorDemand.hingeGyroscopes.allSatisfy { sensors[$0]?.isAvailable == true && allowed.contains($0) }
            if hingeGyroscopes != publisher.hingeGyroscopes {
                publisher.hingeGyroscopes = hingeGyroscopes
                updateDemand()
            }
        }
    }

    private func state(_ kind: SensorKind) -> SensorState {
        guard let availability = sensors[kind] else {
            return SensorState(available: false, reason: "not discovered yet")
        }
        guard allowed.contains(kind) else {
            return SensorState(available: false, reason: "not used: excluded by --sensors")
        }
        // Light and proximity run at their wake interval all the time: that is their period. A
        // buffered motion sensor delivers at its device's frequency, which the source knows.
        let period = kind.isMotion ? availability.period ?? request.periods[kind] : request.wakeInterval(kind)
        return SensorState(available: availability.isAvailable, reason: availability.reason, mode: availability.mode?.rawValue,
                           period: availability.isAvailable ? period : nil,
                           restInterval: availability.isAvailable && kind.isMotion ? request.wakeIntervals[kind] : nil,
                           location: availability.isAvailable ? availability.location : nil)
    }

    private var states: [SensorKind: SensorState] {
        Dictionary(uniqueKeysWithValues: SensorKind.allCases.map { ($0, state($0)) })
    }

    private func hello(_ grant: AccessGrant) -> Hello {
        Hello(daemon: MotionVersion.daemon, sensors: states, frames: engine.availableFrames, access: grant)
    }

    private func answer(_ request: ClientRequest, from client: ClientID, grant: AccessGrant, clients: Int, into out: inout [Addressed]) {
        var extra: [ServerMessage] = []
        let result: Result<ServerMessage.Reply, ProtocolError>
        do throws(ProtocolError) {
            switch try grant.admit(request) {
            case .subscribe(let wanted):
                let subscription = try publisher.subscribe(wanted, client: client, engine: engine, into: &out)
                logger.debug("\(client) subscribed to \(wanted.stream) every \(subscription.interval) s")
                updateDemand()
                extra = currentState(of: wanted.stream, for: subscription)
                let available = subscription.kinds.allSatisfy { state($0).available }
                result = .success(.subscribed(interval: subscription.interval, available: available, latency: subscription.latency))
            case .unsubscribe(_, let stream):
                try publisher.unsubscribe(stream, client: client, into: &out)
                logger.debug("\(client) unsubscribed from \(stream)")
                updateDemand()
                result = .success(.unsubscribed)
            case .get(_, let stream, let frame, let orientation):
                let value = try latestValue(stream, frame: frame, orientation: orientation, client: client)
                result = .success(.value(grant.capsRate ? throttled(value, PullKey(stream, frame, orientation), for: client, grant: grant) : value))
            case .status:
                result = .success(.status(DaemonStatus(
                    source: source.uri, uptime: BootClock.now() - started, sensors: states, frames: engine.availableFrames,
                    engine: EngineFlags(engine.status), clients: clients, subscriptions: publisher.counts,
                    heapInUse: Heap.bytesInUse)))
            }
        } catch {
            result = .failure(error)
            logger.debug("\(client): \(error)", metadata: ["client": "\(client)", "error_code": "\(error.code.rawValue)"])
        }
        out.append(Addressed(client: client, message: OutgoingMessage(.reply(id: request.id, result))))
        for message in extra { out.append(Addressed(client: client, message: OutgoingMessage(message))) }
    }

    /// What a new subscriber of a state stream learns at once: every sensor's availability,
    /// the calibration, the orientation, the tilt, a convertible's posture and near or far (when
    /// known).
    private func currentState(of stream: StreamName, for subscription: Subscription) -> [ServerMessage] {
        switch stream {
        case .availability:
            return SensorKind.allCases.filter { sensors[$0] != nil }.map { .availability($0, state($0)) }
        case .calibration:
            let status = engine.status
            return [.calibration(accuracy: status.calibrationAccuracy, calibrationNeeded: status.calibrationNeeded)]
        case .orientation:
            let orientation = publisher.orientation(for: subscription.detectors)
            guard orientation != .unknown, let t = publisher.detectorTime else { return [] }
            return [.event(.orientation(orientation, timestamp: t))]
        case .tilt:
            guard let tilt = publisher.tilt(for: subscription.detectors), let t = publisher.detectorTime else { return [] }
            return [.event(.tilt(tilt, timestamp: t))]
        case .posture:
            let posture = publisher.posture(for: subscription.detectors)
            guard posture != .unknown, let t = publisher.detectorTime else { return [] }
            return [.event(.posture(posture, timestamp: t))]
        case .proximity:
            return publisher.proximity.state.map { [.proximity($0)] } ?? []
        default:
            return []
        }
    }

    /// `get`: the latest value of a stream, in its push shape.
    private func latestValue(_ stream: StreamName, frame: AttitudeReferenceFrame?, orientation: HeadingOrientation?,
                             client: ClientID) throws(ProtocolError) -> ServerMessage {
        guard stream.isPullable else {
            throw ProtocolError(.notPullable, stream == .availability
                ? "availability has no single latest value: use status, or subscribe to availability"
                : "\(stream) is an event stream: subscribe to it")
        }
        if let kind = stream.sensorKind {
            guard let sample = latest[kind] else { throw noSample(stream, needs: [kind]) }
            return .sample(sample)
        }
        switch stream {
        case .deviceMotion:
            let subscription = publisher.subscription(.deviceMotion, client: client)
            let frame = frame ?? subscription?.frame ?? .xArbitraryZVertical
            let anchor = subscription?.frame == frame ? subscription?.anchor : nil
            do {
                return .deviceMotion(try engine.deviceMotion(in: frame, anchor: anchor))
            } catch {
                throw unavailable(error, stream, needs: SensorDemand.kinds(for: .deviceMotion, frame: frame))
            }
        case .heading:
            let orientation = orientation ?? publisher.subscription(.heading, client: client)?.headingOrientation ?? .portrait
            do {
                let heading = try engine.heading(orientation: orientation)
                return .heading(heading, orientation: orientation, topEdge: try engine.heading(orientation: .portrait).magneticHeading)
            } catch {
                throw unavailable(error, stream, needs: SensorDemand.kinds(for: .heading, frame: nil))
            }
        case .orientation:
            guard let t = publisher.detectorTime else { throw noSample(stream, needs: [.accelerometer]) }
            return .event(.orientation(publisher.orientation(for: publisher.defaultDetectors), timestamp: t))
        case .tilt:
            guard let t = publisher.detectorTime, let tilt = publisher.tilt(for: publisher.defaultDetectors) else {
                throw noSample(stream, needs: [.accelerometer])
            }
            return .event(.tilt(tilt, timestamp: t))
        case .proximity:
            guard let state = publisher.proximity.state else { throw noSample(stream, needs: [.proximity]) }
            return .proximity(state)
        case .hinge:
            guard let angle = engine.hingeAngle else { throw noSample(stream, needs: [.accelerometer, .baseAccelerometer]) }
            return .hinge(angle)
        case .posture:
            let posture = publisher.posture(for: publisher.defaultDetectors)
            guard posture != .unknown, let t = publisher.detectorTime else { throw noSample(stream, needs: [.accelerometer, .baseAccelerometer]) }
            return .event(.posture(posture, timestamp: t))
        default:
            let status = engine.status
            return .calibration(accuracy: status.calibrationAccuracy, calibrationNeeded: status.calibrationNeeded)
        }
    }

    /// What a rate-capped client pulls: `value`, unless the value it pulled last for `key` is
    /// less than the cap's interval older (by sample time); then that one again.
    private func throttled(_ value: ServerMessage, _ key: PullKey, for client: ClientID, grant: AccessGrant) -> ServerMessage {
        guard let t = value.timestamp else { return value }
        if let last = pulled[client]?[key], t >= last.timestamp, t - last.timestamp < grant.minimumInterval - 1e-6 {
            return last.value
        }
        pulled[client, default: [:]][key] = (t, value)
        return value
    }

    /// What a `get` asked for, for ``throttled(_:_:for:grant:)``.
    private struct PullKey: Hashable {
        var stream: StreamName
        var frame: AttitudeReferenceFrame?
        var orientation: HeadingOrientation?

        init(_ stream: StreamName, _ frame: AttitudeReferenceFrame?, _ orientation: HeadingOrientation?) {
            self.stream = stream
            self.frame = frame
            self.orientation = orientation
        }
    }

    private func unavailable(_ error: DeviceMotionUnavailable, _ stream: StreamName, needs: Set<SensorKind>) -> ProtocolError {
        if case .frameUnavailable(let frame, let reason) = error { return ProtocolError(.frameUnavailable, "\(frame): \(reason)") }
        return noSample(stream, needs: needs)
    }

    private func noSample(_ stream: StreamName, needs: Set<SensorKind>) -> ProtocolError {
        let idle = needs.filter { request.periods[$0] == nil }.map(\.rawValue).sorted()
        let why = idle.isEmpty ? "the sensors are starting or the fusion is warming up"
            : "\(idle.joined(separator: " and ")) not running: subscribe to \(stream) to start it"
        return ProtocolError(.noSample, "no \(stream) value yet: \(why)")
    }

    /// Moves between the full and the rest rate as the accelerometer (and a convertible's base
    /// accelerometer, while it is read) starts and stops moving.
    private func followStillness(_ sample: Sample) {
        if sample.kind == .baseAccelerometer {
            baseStillness.update(sample.vector, at: sample.timestamp)
        } else {
            stillness.update(sample.vector, at: sample.timestamp)
        }
        let baseStill = request.periods[.baseAccelerometer] == nil || baseStillness.held(for: Self.restAfter)
        let rest = stillness.held(for: Self.restAfter) && baseStill
        if rest, let at = releaseCodeAt, sample.timestamp >= at {
            // What motion, the clients' requests and the switch itself faulted in is not
            // needed to read a still device: the rest loop faults back only its own pages.
            releaseCodeAt = nil
            // Reading /proc/self/smaps takes milliseconds: not on the sample path.
            housekeeping.async { CodePages.release() }
        }
        guard rest != atRest else { return }
        atRest = rest
        updateDemand()
        // Two rest readings later, when the switch to the rest rate is over.
        releaseCodeAt = rest ? request.wakeIntervals[.accelerometer].map { sample.timestamp + 2 * $0 } : nil
    }

    /// Asks the source for what the subscriptions need now.
    private func updateDemand() {
        var wanted = SensorDemand.batching(SensorDemand.request(publisher.needs, allowed: allowed), publisher.latencies)
        if atRest && publisher.toleratesRestRate { wanted = SensorDemand.resting(wanted, interval: restInterval) }
        guard wanted != request else { return }
        if request.periods[.accelerometer] != nil && wanted.periods[.accelerometer] == nil {
            publisher.resetDetectors()
            stillness.reset()
            atRest = false
        }
        if request.periods[.baseAccelerometer] != nil && wanted.periods[.baseAccelerometer] == nil { baseStillness.reset() }
        if request.periods[.proximity] != nil && wanted.periods[.proximity] == nil { publisher.resetProximity() }
        request = wanted
        logger.info("sensors\(describe(wanted))")
        refreshStatus()
        control.async { [self, wanted] in
            do {
                try source.update(wanted)
            } catch {
                logger.error("cannot change what \(source.uri) reads: \(error)")
            }
        }
    }

    private func describe(_ request: SourceRequest) -> String {
        guard !request.periods.isEmpty else { return ": all idle (nothing subscribed)" }
        return ": " + Self.reading(request).joined(separator: ", ")
    }

    /// Each sensor read and how often: `accelerometer every 20 ms (at rest: read every 350 ms)`,
    /// `gyroscope every 10 ms (batched: may come 1000 ms late)`.
    private static func reading(_ request: SourceRequest) -> [String] {
        SensorKind.allCases.compactMap { kind in
            if !kind.isMotion, let interval = request.wakeInterval(kind) {
                return "\(kind) every \(SysfsNumber.format(interval * 1000)) ms"
            }
            return request.periods[kind].map { period in
                "\(kind) every \(SysfsNumber.format(period * 1000)) ms"
                    + (request.wakeIntervals[kind].map { " (at rest: read every \(SysfsNumber.format($0 * 1000)) ms)" } ?? "")
                    + (request.latencies[kind].map { " (batched: may come \(SysfsNumber.format($0 * 1000)) ms late)" } ?? "")
            }
        }
    }

    private func log(_ event: MotionEngine.Event, into out: inout [Addressed]) {
        switch event {
        case .calibrationAccuracyChanged(let from, let to):
            let status = engine.status
            let hint = status.calibrationNeeded ? "; move the device in a figure eight to calibrate the magnetometer" : ""
            logger.notice("magnetometer calibration accuracy \(from) → \(to)\(hint)")
            publisher.broadcast(.calibration(accuracy: to, calibrationNeeded: status.calibrationNeeded), to: .calibration, into: &out)
        case .axisCheckConcluded(let verdict, let applied):
            switch verdict {
            case .consistent, .undetermined:
                logger.info("axis self-check: \(verdict)")
            case .inconsistent, .implausible:
                logger.warning("axis self-check: \(verdict)\(applied ? "; correction applied" : "; run with --apply-axis-correction to apply it")")
            }
        case .magneticDisturbance(let began):
            logger.info(began ? "magnetic disturbance: heading coasts on the gyroscope" : "magnetic disturbance over")
        case .attitudeRestarted:
            let gap = SysfsNumber.format(engine.configuration.estimator.maximumGap)
            logger.notice("the motion samples stopped for more than \(gap) s (a suspend, a stopped daemon, an unplugged sensor): attitude restarted from gravity, heading from the next magnetometer reading")
        }
    }
}
