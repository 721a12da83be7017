import MotionCore
import MotionProtocol

/// The subscriptions of every recipient (socket clients, the daemon's own subscribers) and what
/// each receives: per-subscription
/// decimation to the requested interval, device motion per frame and anchor, headings per
/// edge and filter, and events from detectors run once per distinct set of detector
/// parameters. Each message is encoded once, however many clients get it. Subscriptions with a
/// `latency` get their values in batches (``Batch``): held here, and handed on together when
/// the oldest is `latency` old by sample time, when the subscription is replaced or ends, or
/// when a sensor it needs becomes unavailable (``Batches``). A message is encoded only when a
/// socket client gets it (``Parcel``). Lives on the pipeline queue; pure apart from that (time
/// comes from samples).
struct Publisher: Sendable {
    /// Subscriptions by stream, then recipient (at most one per recipient and stream).
    private(set) var subscriptions: [StreamName: [Recipient: Subscription]] = [:]
    /// Running detectors per parameter set; the daemon's own set always runs.
    private var detectors: [DetectorConfiguration: MotionEventDetectors]
    private(set) var defaultDetectors: DetectorConfiguration
    /// Time of the latest accelerometer sample the detectors saw.
    private(set) var detectorTime: Double?
    /// Near or far, from the proximity sensor's readings (one for every subscriber: it has no
    /// options).
    private(set) var proximity = ProximityDetector()
    /// What batching subscriptions hold, while they hold anything.
    private var batches = Batches()

    init(detectors: DetectorConfiguration) {
        defaultDetectors = detectors
        self.detectors = [detectors: MotionEventDetectors(configuration: detectors)]
    }

    // MARK: - Subscriptions

    /// Adds (or replaces) a subscription. Frames the engine cannot serve are refused. What the
    /// replaced subscription held goes to `out` first.
    mutating func subscribe(_ request: ClientRequest.Subscription, recipient: Recipient, engine: MotionEngine,
                            into out: inout [Addressed]) throws(ProtocolError) -> Subscription {
        if request.stream == .deviceMotion, let frame = request.frame, !engine.availableFrames.contains(frame) {
            var reason = "not available"
            do { _ = try engine.attitude(in: frame) } catch { if case .frameUnavailable(_, let why) = error { reason = why } }
            throw ProtocolError(.frameUnavailable, "\(frame): \(reason)")
        }
        let subscription = try Subscription(request, defaultDetectors: defaultDetectors)
        batches.release(Batches.Key(stream: request.stream, recipient: recipient), into: &out)
        add(subscription, recipient: recipient)
        return subscription
    }

    /// New detector settings for the daemon (a configuration reload): every subscription's
    /// detectors become them with its client's changes laid over. Detectors whose parameters
    /// did not change keep running (and keep the orientation they hold).
    mutating func replaceDefaultDetectors(_ new: DetectorConfiguration) {
        guard new != defaultDetectors else { return }
        defaultDetectors = new
        for (stream, recipients) in subscriptions where stream.isDetectorStream {
            for (recipient, subscription) in recipients {
                // The options fitted the old parameters, so they fit the new ones (same types).
                let resolved = (try? Subscription.detectors(subscription.detectorOptions, over: new)) ?? new
                subscriptions[stream]?[recipient]?.detectors = resolved
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
    mutating func add(_ subscription: Subscription, recipient: Recipient) {
        subscriptions[subscription.stream, default: [:]][recipient] = subscription
        if subscription.stream.isDetectorStream, detectors[subscription.detectors] == nil {
            detectors[subscription.detectors] = MotionEventDetectors(configuration: subscription.detectors)
        }
        pruneDetectors()
    }

    /// Ends a subscription; what it held goes to `out`.
    mutating func unsubscribe(_ stream: StreamName, recipient: Recipient, into out: inout [Addressed]) throws(ProtocolError) {
        guard subscriptions[stream]?.removeValue(forKey: recipient) != nil else {
            throw ProtocolError(.notSubscribed, "not subscribed to \(stream)")
        }
        batches.release(Batches.Key(stream: stream, recipient: recipient), into: &out)
        pruneDetectors()
    }

    /// Forgets everything of a recipient that went away, what its batches held too: nobody is
    /// left to read them.
    mutating func remove(_ recipient: Recipient) {
        for stream in subscriptions.keys { subscriptions[stream]?[recipient] = nil }
        batches.forget(recipient)
        pruneDetectors()
    }

    func subscription(_ stream: StreamName, recipient: Recipient) -> Subscription? {
        subscriptions[stream]?[recipient]
    }

    /// Whether the recipient subscribes to anything.
    func hasSubscriptions(_ recipient: Recipient) -> Bool {
        subscriptions.values.contains { $0[recipient] != nil }
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

    /// Whether every subscription tolerates the rest rate (``SensorDemand/toleratesRestRate(_:for:)``).
    var toleratesRestRate: Bool {
        subscriptions.allSatisfy { stream, recipients in recipients.keys.allSatisfy { SensorDemand.toleratesRestRate(stream, for: $0) } }
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
        batches.releaseDue(at: t, into: &out)
        let raw = StreamName(sample.kind)
        let rawDue = raw.sensorKind == sample.kind ? due(raw, at: t, period: period) : []
        if !rawDue.isEmpty {
            var parcel = Parcel(.sample(sample))
            for recipient in rawDue {
                guard let subscription = subscriptions[raw]?[recipient] else { continue }
                deliver(&parcel, to: recipient, of: subscription, at: t, into: &out)
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
                var parcel = Parcel(.hinge(angle))
                for recipient in due(.hinge, at: t, period: period) {
                    guard let subscription = subscriptions[.hinge]?[recipient] else { continue }
                    deliver(&parcel, to: recipient, of: subscription, at: t, into: &out)
                }
            }
        case .proximity:
            if let change = proximity.update(sample) {
                var parcel = Parcel(.proximity(change))
                for recipient in (subscriptions[.proximity] ?? [:]).keys.sorted() { out.append(parcel.addressed(to: recipient)) }
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
        var deviceMotion: [(recipient: Recipient, frame: AttitudeReferenceFrame, unavailable: DeviceMotionUnavailable?)] = []
    }

    /// A message for every subscriber of `stream` (availability, calibration). A sensor's
    /// unavailability first releases every batch that needs the sensor: no more values may
    /// come to make it due.
    mutating func broadcast(_ message: ServerMessage, to stream: StreamName, into out: inout [Addressed]) {
        if case .availability(let kind, let state) = message, !state.available {
            batches.release(where: { subscriptions[$0.stream]?[$0.recipient]?.kinds.contains(kind) ?? true }, into: &out)
        }
        guard let recipients = subscriptions[stream], !recipients.isEmpty else { return }
        var parcel = Parcel(message)
        for recipient in recipients.keys.sorted() { out.append(parcel.addressed(to: recipient)) }
    }

    /// Values held by batching subscriptions, in all.
    var heldCount: Int { batches.heldCount }

    /// Hands `parcel`, a value of time `t`, to `recipient` now, or holds it in the batch of
    /// `subscription` when that has a latency.
    private mutating func deliver(_ parcel: inout Parcel, to recipient: Recipient, of subscription: Subscription, at t: Double,
                                  into out: inout [Addressed]) {
        let addressed = parcel.addressed(to: recipient)
        if subscription.latency > 0 {
            batches.hold(addressed, of: subscription, at: t)
        } else {
            out.append(addressed)
        }
    }

    /// The subscribers of `stream` whose next value is due at `t`.
    private mutating func due(_ stream: StreamName, at t: Double, period: Double) -> [Recipient] {
        guard var recipients = subscriptions.removeValue(forKey: stream) else { return [] }
        defer { subscriptions[stream] = recipients }
        var due: [Recipient] = []
        // Walking indices by hand: `recipients.indices` would hold the storage and make every
        // mutation below copy the whole dictionary.
        var index = recipients.startIndex
        while index != recipients.endIndex {
            if recipients.values[index].decimator.admit(t, period: period) { due.append(recipients.keys[index]) }
            recipients.formIndex(after: &index)
        }
        return due
    }

    private struct MotionKey: Hashable {
        var frame: AttitudeReferenceFrame
        var anchor: FrameAnchor?
    }

    private mutating func publishDeviceMotion(_ engine: MotionEngine, at t: Double, period: Double,
                                              into out: inout [Addressed]) -> [(Recipient, AttitudeReferenceFrame, DeviceMotionUnavailable?)] {
        let recipients = due(.deviceMotion, at: t, period: period)
        guard !recipients.isEmpty else { return [] }
        var parcels: [MotionKey: Result<Parcel, DeviceMotionUnavailable>] = [:]
        var changes: [(Recipient, AttitudeReferenceFrame, DeviceMotionUnavailable?)] = []
        for recipient in recipients {
            guard var subscription = subscriptions[.deviceMotion]?[recipient] else { continue }
            let arbitrary = subscription.frame == .xArbitraryZVertical || subscription.frame == .xArbitraryCorrectedZVertical
            if arbitrary && subscription.anchor == nil && engine.isReady { subscription.anchor = engine.anchor() }
            let key = MotionKey(frame: subscription.frame, anchor: arbitrary ? subscription.anchor : nil)
            let result = parcels[key] ?? Result { () throws(DeviceMotionUnavailable) in
                Parcel(.deviceMotion(try engine.deviceMotion(in: key.frame, anchor: key.anchor)))
            }
            let unavailable: DeviceMotionUnavailable?
            switch result {
            case .success(var parcel):
                deliver(&parcel, to: recipient, of: subscription, at: t, into: &out)
                parcels[key] = .success(parcel)
                unavailable = nil
            case .failure(let error):
                parcels[key] = result
                unavailable = error
            }
            if unavailable != subscription.unavailable {
                subscription.unavailable = unavailable
                changes.append((recipient, subscription.frame, unavailable))
            }
            subscriptions[.deviceMotion]?[recipient] = subscription
        }
        return changes
    }

    private mutating func publishHeading(_ engine: MotionEngine, at t: Double, period: Double, into out: inout [Addressed]) {
        let recipients = due(.heading, at: t, period: period)
        guard !recipients.isEmpty else { return }
        var headings: [HeadingOrientation: Heading?] = [:]
        func heading(_ orientation: HeadingOrientation) -> Heading? {
            if let known = headings[orientation] { return known }
            let value = try? engine.heading(orientation: orientation)
            headings[orientation] = value
            return value
        }
        for recipient in recipients {
            guard var subscription = subscriptions[.heading]?[recipient],
                  let value = heading(subscription.headingOrientation), let top = heading(.portrait),
                  subscription.headingFilter.admit(value.magneticHeading) else { continue }
            subscriptions[.heading]?[recipient] = subscription
            var parcel = Parcel(.heading(value, orientation: subscription.headingOrientation, topEdge: top.magneticHeading))
            deliver(&parcel, to: recipient, of: subscription, at: t, into: &out)
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
                var parcel = Parcel(.event(event))
                let stream = parcel.message.stream!
                for (recipient, subscription) in subscriptions[stream] ?? [:] where subscription.detectors == configuration {
                    out.append(parcel.addressed(to: recipient))
                }
            }
        }
        return own
    }
}
