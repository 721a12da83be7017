import MotionCore
import MotionProtocol

/// The subscriptions of every client and what each receives (R10, R12): per-subscription
/// decimation to the requested interval, device motion per frame and anchor, headings per
/// edge and filter, and events from detectors run once per distinct set of detector
/// parameters. Each message is encoded once, however many clients get it. Subscriptions with a
/// `latency` get their values in batches (``Batch``): held here, and handed on together when
/// the oldest is `latency` old by sample time, when the subscription is replaced or ends, or
/// when a sensor it needs becomes unavailable. Lives on the pipeline queue; pure apart from
/// that (time comes from samples).
struct Publisher: Sendable {
    /// Subscriptions by stream, then client (at most one per client and stream).
    private(set) var subscriptions: [StreamName: [ClientID: Subscription]] = [:]
    /// Running detectors per parameter set; the daemon's own set always runs.
    private var detectors: [DetectorConfiguration: MotionEventDetectors]
    private(set) var defaultDetectors: DetectorConfiguration
    /// Time of the latest accelerometer sample the detectors saw.
    private(set) var detectorTime: Double?
    /// Near or far, from the proximity sensor's readings (one for every subscriber: it has no
    /// options).
    private(set) var proximity = ProximityDetector()
    /// What batching subscriptions hold, while they hold anything.
    private var batches: [BatchKey: Batch] = [:]
    /// The earliest time a batch may be due (infinity: none held; may be early, never late).
    private var nextDue = Double.infinity

    init(detectors: DetectorConfiguration) {
        defaultDetectors = detectors
        self.detectors = [detectors: MotionEventDetectors(configuration: detectors)]
    }

    // MARK: - Subscriptions

    /// Adds (or replaces) a subscription. Frames the engine cannot serve are refused. What the
    /// replaced subscription held goes to `out` first.
    mutating func subscribe(_ request: ClientRequest.Subscription, client: ClientID, engine: MotionEngine,
                            into out: inout [Addressed]) throws(ProtocolError) -> Subscription {
        if request.stream == .deviceMotion, let frame = request.frame, !engine.availableFrames.contains(frame) {
            var reason = "not available"
            do { _ = try engine.attitude(in: frame) } catch { if case .frameUnavailable(_, let why) = error { reason = why } }
            throw ProtocolError(.frameUnavailable, "\(frame): \(reason)")
        }
        let subscription = try Subscription(request, defaultDetectors: defaultDetectors)
        release(BatchKey(stream: request.stream, client: client), into: &out)
        add(subscription, client: client)
        return subscription
    }

    /// New detector settings for the daemon (a configuration reload): every subscription's
    /// detectors become them with its client's changes laid over. Detectors whose parameters
    /// did not change keep running (and keep the orientation they hold).
    mutating func replaceDefaultDetectors(_ new: DetectorConfiguration) {
        guard new != defaultDetectors else { return }
        defaultDetectors = new
        for (stream, clients) in subscriptions where stream.isDetectorStream {
            for (client, subscription) in clients {
                // The options fitted the old parameters, so they fit the new ones (same types).
                let resolved = (try? Subscription.detectors(subscription.detectorOptions, over: new)) ?? new
                subscriptions[stream]?[client]?.detectors = resolved
            }
        }
        for configuration in Set(subscriptions.filter { $0.key.isDetectorStream }.values.flatMap(\.values).map(\.detectors)).union([new])
        where detectors[configuration] == nil {
            detectors[configuration] = MotionEventDetectors(configuration: configuration)
        }
        pruneDetectors()
    }

    /// Adds a subscription made by the daemon itself (frames are not checked: unavailable
    /// ones are reported through ``Notes``).
    mutating func add(_ subscription: Subscription, client: ClientID) {
        subscriptions[subscription.stream, default: [:]][client] = subscription
        if subscription.stream.isDetectorStream, detectors[subscription.detectors] == nil {
            detectors[subscription.detectors] = MotionEventDetectors(configuration: subscription.detectors)
        }
        pruneDetectors()
    }

    /// Ends a subscription; what it held goes to `out`.
    mutating func unsubscribe(_ stream: StreamName, client: ClientID, into out: inout [Addressed]) throws(ProtocolError) {
        guard subscriptions[stream]?.removeValue(forKey: client) != nil else {
            throw ProtocolError(.notSubscribed, "not subscribed to \(stream)")
        }
        release(BatchKey(stream: stream, client: client), into: &out)
        pruneDetectors()
    }

    /// Forgets everything of a client that went away, what its batches held too: its
    /// connection is gone, so nobody is left to read them.
    mutating func remove(_ client: ClientID) {
        for stream in subscriptions.keys { subscriptions[stream]?[client] = nil }
        batches = batches.filter { $0.key.client != client }
        pruneDetectors()
    }

    func subscription(_ stream: StreamName, client: ClientID) -> Subscription? {
        subscriptions[stream]?[client]
    }

    /// Whether the client subscribes to anything.
    func hasSubscriptions(_ client: ClientID) -> Bool {
        subscriptions.values.contains { $0[client] != nil }
    }

    /// Whether `hinge` subscriptions read both gyroscopes too (the pipeline sets it while the
    /// machine has the pair: ``SensorDemand/hingeGyroscopes``).
    var hingeGyroscopes = false

    /// The sensors a subscription keeps running: its own (``Subscription/kinds``), and for the
    /// hinge both gyroscopes while ``hingeGyroscopes``.
    private func reads(_ subscription: Subscription) -> Set<SensorKind> {
        subscription.stream == .hinge && hingeGyroscopes ? subscription.kinds.union(SensorDemand.hingeGyroscopes) : subscription.kinds
    }

    /// What the subscriptions need from the sensors.
    var needs: [(kinds: Set<SensorKind>, interval: Double)] {
        subscriptions.values.flatMap(\.values).map { (reads($0), $0.interval) }
    }

    /// How late each subscription lets its sensors' readings come (0: at once).
    var latencies: [(kinds: Set<SensorKind>, latency: Double)] {
        subscriptions.values.flatMap(\.values).map { (reads($0), $0.latency) }
    }

    /// Whether every subscription tolerates the rest rate (``SensorDemand/toleratesRestRate(_:)``).
    var toleratesRestRate: Bool {
        subscriptions.allSatisfy { stream, clients in clients.isEmpty || SensorDemand.toleratesRestRate(stream) }
    }

    /// Subscriptions per stream.
    var counts: [StreamName: Int] {
        subscriptions.compactMapValues { $0.isEmpty ? nil : $0.count }
    }

    /// Detectors with no subscriber go (except the daemon's own set).
    private mutating func pruneDetectors() {
        let used = Set(subscriptions.filter { $0.key.isDetectorStream }.values.flatMap(\.values).map(\.detectors))
        for configuration in detectors.keys where configuration != defaultDetectors && !used.contains(configuration) {
            detectors[configuration] = nil
        }
    }

    /// The proximity sensor stopped: near or far is decided afresh by its next reading.
    mutating func resetProximity() { proximity.reset() }

    /// The accelerometer stopped: detectors start afresh next time (no stale orientation).
    mutating func resetDetectors() {
        for configuration in detectors.keys { detectors[configuration] = MotionEventDetectors(configuration: configuration) }
        detectorTime = nil
    }

    /// The orientation the detectors with these parameters hold now (`unknown` if none yet).
    func orientation(for configuration: DetectorConfiguration) -> DeviceOrientation {
        detectors[configuration]?.orientation.orientation ?? .unknown
    }

    /// The tilt the detectors with these parameters hold now (nil if none yet).
    func tilt(for configuration: DetectorConfiguration) -> DeviceTilt? {
        detectors[configuration]?.tilt
    }

    /// A convertible's posture as the detectors with these parameters hold it now (`unknown`
    /// if none yet).
    func posture(for configuration: DetectorConfiguration) -> Posture {
        detectors[configuration]?.posture.posture ?? .unknown
    }

    // MARK: - Publishing

    /// Everything `sample` (already taken by `engine`) causes: raw samples (light's too), device
    /// motion and headings (on gyroscope samples, the fusion's rate), detector events and a
    /// convertible's hinge angle (on accelerometer samples) and near/far changes (on proximity samples), appended to `out`. `period` is the spacing of this sensor's samples.
    /// Batches due at the sample's time leave first; the values the sample itself causes start
    /// the next batch. Returns what the log should know (see ``Notes``).
    mutating func publish(_ sample: Sample, engine: MotionEngine, period: Double, into out: inout [Addressed]) -> Notes {
        let t = sample.timestamp
        releaseBatches(dueAt: t, into: &out)
        let raw = StreamName(sample.kind)
        let rawDue = raw.sensorKind == sample.kind ? due(raw, at: t, period: period) : []
        if !rawDue.isEmpty {
            let message = OutgoingMessage(.sample(sample))
            for client in rawDue {
                guard let subscription = subscriptions[raw]?[client] else { continue }
                deliver(message, to: client, of: subscription, at: t, into: &out)
            }
        }
        var notes = Notes()
        switch sample.kind {
        case .gyroscope:
            notes.deviceMotion = publishDeviceMotion(engine, at: t, period: period, into: &out)
            if engine.isReady { publishHeading(engine, at: t, period: period, into: &out) }
        case .accelerometer:
            notes.events = detect(sample, engine: engine, into: &out)
            // A convertible's hinge angle comes with each display accelerometer sample.
            if let angle = engine.hingeAngle, angle.timestamp == t {
                let message = OutgoingMessage(.hinge(angle))
                for client in due(.hinge, at: t, period: period) {
                    guard let subscription = subscriptions[.hinge]?[client] else { continue }
                    deliver(message, to: client, of: subscription, at: t, into: &out)
                }
            }
        case .proximity:
            if let change = proximity.update(sample) {
                let message = OutgoingMessage(.proximity(change))
                for client in (subscriptions[.proximity] ?? [:]).keys.sorted() { out.append(Addressed(client: client, message: message)) }
            }
        case .magnetometer, .light, .baseAccelerometer, .baseGyroscope:
            break
        }
        return notes
    }

    /// What a publish step tells the log.
    struct Notes {
        /// Events of the daemon's own detectors.
        var events: [MotionEvent] = []
        /// Device-motion subscriptions whose values stopped (with why) or resumed (nil).
        var deviceMotion: [(client: ClientID, frame: AttitudeReferenceFrame, unavailable: DeviceMotionUnavailable?)] = []
    }

    /// A message for every subscriber of `stream` (availability, calibration). A sensor's
    /// unavailability first releases every batch that needs the sensor: no more values may
    /// come to make it due.
    mutating func broadcast(_ message: ServerMessage, to stream: StreamName, into out: inout [Addressed]) {
        if case .availability(let kind, let state) = message, !state.available {
            for key in batches.keys.sorted() where subscriptions[key.stream]?[key.client]?.kinds.contains(kind) ?? true {
                release(key, into: &out)
            }
        }
        guard let clients = subscriptions[stream], !clients.isEmpty else { return }
        let encoded = OutgoingMessage(message)
        for client in clients.keys.sorted() { out.append(Addressed(client: client, message: encoded)) }
    }

    /// Values held by batching subscriptions, in all.
    var heldCount: Int {
        batches.values.reduce(0) { $0 + $1.count }
    }

    /// Hands `message`, a value of time `t`, to `client` now, or holds it in the batch of
    /// `subscription` when that has a latency.
    private mutating func deliver(_ message: OutgoingMessage, to client: ClientID, of subscription: Subscription, at t: Double,
                                  into out: inout [Addressed]) {
        guard subscription.latency > 0 else {
            out.append(Addressed(client: client, message: message))
            return
        }
        let key = BatchKey(stream: subscription.stream, client: client)
        let due = batches[key, default: Batch(latency: subscription.latency, queueCapacity: subscription.batchCapacity)].hold(message, at: t)
        nextDue = min(nextDue, due)
    }

    /// Every batch whose oldest value is `latency` old at `t`, to `out`.
    private mutating func releaseBatches(dueAt t: Double, into out: inout [Addressed]) {
        guard Batch.reached(nextDue, at: t) else { return }
        nextDue = .infinity
        for key in batches.keys.sorted() {
            guard let batch = batches[key] else { continue }
            if batch.isDue(at: t) {
                release(key, into: &out)
            } else {
                nextDue = min(nextDue, batch.due)
            }
        }
    }

    /// What one subscription holds, to `out` (nothing when it holds nothing).
    private mutating func release(_ key: BatchKey, into out: inout [Addressed]) {
        guard let batch = batches.removeValue(forKey: key) else { return }
        for message in batch.released { out.append(Addressed(client: key.client, message: message)) }
    }

    /// A subscription's batch: its stream and client.
    private struct BatchKey: Hashable, Comparable {
        var stream: StreamName
        var client: ClientID

        static func < (a: Self, b: Self) -> Bool {
            (a.client, a.stream.rawValue) < (b.client, b.stream.rawValue)
        }
    }

    /// The subscribers of `stream` whose next value is due at `t`.
    private mutating func due(_ stream: StreamName, at t: Double, period: Double) -> [ClientID] {
        guard var clients = subscriptions.removeValue(forKey: stream) else { return [] }
        defer { subscriptions[stream] = clients }
        var due: [ClientID] = []
        // Walking indices by hand: `clients.indices` would hold the storage and make every
        // mutation below copy the whole dictionary.
        var index = clients.startIndex
        while index != clients.endIndex {
            if clients.values[index].decimator.admit(t, period: period) { due.append(clients.keys[index]) }
            clients.formIndex(after: &index)
        }
        return due
    }

    private struct MotionKey: Hashable {
        var frame: AttitudeReferenceFrame
        var anchor: FrameAnchor?
    }

    private mutating func publishDeviceMotion(_ engine: MotionEngine, at t: Double, period: Double,
                                              into out: inout [Addressed]) -> [(ClientID, AttitudeReferenceFrame, DeviceMotionUnavailable?)] {
        let clients = due(.deviceMotion, at: t, period: period)
        guard !clients.isEmpty else { return [] }
        var encoded: [MotionKey: Result<OutgoingMessage, DeviceMotionUnavailable>] = [:]
        var changes: [(ClientID, AttitudeReferenceFrame, DeviceMotionUnavailable?)] = []
        for client in clients {
            guard var subscription = subscriptions[.deviceMotion]?[client] else { continue }
            let arbitrary = subscription.frame == .xArbitraryZVertical || subscription.frame == .xArbitraryCorrectedZVertical
            if arbitrary && subscription.anchor == nil && engine.isReady { subscription.anchor = engine.anchor() }
            let key = MotionKey(frame: subscription.frame, anchor: arbitrary ? subscription.anchor : nil)
            let result = encoded[key] ?? Result { () throws(DeviceMotionUnavailable) in
                OutgoingMessage(.deviceMotion(try engine.deviceMotion(in: key.frame, anchor: key.anchor)))
            }
            encoded[key] = result
            let unavailable: DeviceMotionUnavailable?
            switch result {
            case .success(let message):
                deliver(message, to: client, of: subscription, at: t, into: &out)
                unavailable = nil
            case .failure(let error):
                unavailable = error
            }
            if unavailable != subscription.unavailable {
                subscription.unavailable = unavailable
                changes.append((client, subscription.frame, unavailable))
            }
            subscriptions[.deviceMotion]?[client] = subscription
        }
        return changes
    }

    private mutating func publishHeading(_ engine: MotionEngine, at t: Double, period: Double, into out: inout [Addressed]) {
        let clients = due(.heading, at: t, period: period)
        guard !clients.isEmpty else { return }
        var headings: [HeadingOrientation: Heading?] = [:]
        func heading(_ orientation: HeadingOrientation) -> Heading? {
            if let known = headings[orientation] { return known }
            let value = try? engine.heading(orientation: orientation)
            headings[orientation] = value
            return value
        }
        for client in clients {
            guard var subscription = subscriptions[.heading]?[client],
                  let value = heading(subscription.headingOrientation), let top = heading(.portrait),
                  subscription.headingFilter.admit(value.magneticHeading) else { continue }
            subscriptions[.heading]?[client] = subscription
            deliver(OutgoingMessage(.heading(value, orientation: subscription.headingOrientation, topEdge: top.magneticHeading)),
                    to: client, of: subscription, at: t, into: &out)
        }
    }

    private mutating func detect(_ sample: Sample, engine: MotionEngine, into out: inout [Addressed]) -> [MotionEvent] {
        detectorTime = sample.timestamp
        var own: [MotionEvent] = []
        // In place through the values view, walking indices by hand (iterating `keys` or
        // `indices` would hold the storage and copy every detector on each update).
        var index = detectors.startIndex
        while index != detectors.endIndex {
            defer { detectors.formIndex(after: &index) }
            let configuration = detectors.keys[index]
            let events = detectors.values[index].update(sample, engine: engine)
            guard !events.isEmpty else { continue }
            if configuration == defaultDetectors { own = events }
            for event in events {
                let message = OutgoingMessage(.event(event))
                let stream = message.message.stream!
                for (client, subscription) in subscriptions[stream] ?? [:] where subscription.detectors == configuration {
                    out.append(Addressed(client: client, message: message))
                }
            }
        }
        return own
    }
}
