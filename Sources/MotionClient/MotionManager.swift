import Dispatch
import Foundation
import MotionCore
import MotionProtocol
import MotionSync

/// The motion data of this device from motiond, the way Core Motion's `CMMotionManager` gives
/// it: start updates of a sensor or of device motion, then either receive them through a handler
/// on an `OperationQueue` of yours (push) or read the latest value when you need it (pull).
///
/// Use ``shared``: one manager per process multiplexes every consumer over one connection to
/// the daemon (each stream is subscribed once, at the shortest interval anyone wants, and
/// decimated here for the others). It connects on first use, reconnects by itself when the
/// daemon restarts, and restores every subscription; availability reads `false` while it is
/// disconnected. Thread-safe; handlers run only on the queue given with them.
///
/// Units and conventions are Core Motion's (docs/PROTOCOL.md): acceleration in G with gravity's
/// sign (lying face up reads z ≈ −1), rotation rate in rad/s, magnetic field in µT, timestamps
/// in seconds since boot, the device frame +x right, +y up the screen, +z out of it.
// @unchecked: every `var` is confined to `queue` (the public API enters it with `sync` or
// `async`, the link reports on it, consumers are called on it; the confined methods assert it
// in debug builds), which the compiler cannot see.
public final class MotionManager: @unchecked Sendable {
    /// The process's manager, on `$MOTIOND_SOCKET` or `/run/motiond/motiond.sock`.
    public static let shared = MotionManager()

    /// A manager of its own (tests, a second daemon): `socketPath` nil means what ``shared``
    /// uses.
    public init(socketPath: String? = nil) {
        path = DaemonSocket.path(socketPath)
    }

    /// The socket it connects to.
    public let path: String

    deinit {
        // The connection goes with the manager (on its queue, where the link lives).
        queue.async { [link] in link.stop() }
    }

    // MARK: - Intervals (seconds), as in Core Motion; changes apply to running updates.

    public var accelerometerUpdateInterval: TimeInterval {
        get { sync { intervals[.accelerometer] ?? Self.defaultInterval } }
        set { setInterval(newValue, for: .accelerometer) }
    }
    public var gyroUpdateInterval: TimeInterval {
        get { sync { intervals[.gyro] ?? Self.defaultInterval } }
        set { setInterval(newValue, for: .gyro) }
    }
    public var magnetometerUpdateInterval: TimeInterval {
        get { sync { intervals[.magnetometer] ?? Self.defaultInterval } }
        set { setInterval(newValue, for: .magnetometer) }
    }
    public var deviceMotionUpdateInterval: TimeInterval {
        get { sync { intervals[.deviceMotion] ?? Self.defaultInterval } }
        set { setInterval(newValue, for: .deviceMotion) }
    }

    /// The interval of updates started without setting one: 0.1 s, the protocol's default.
    public static let defaultInterval: TimeInterval = ClientRequest.defaultInterval

    // MARK: - Maximum report latency (seconds); changes apply to running updates.
    //
    // Beyond Core Motion, as Android's maximum report latency: how late a value may reach this
    // process. Above 0, motiond holds the values and sends them together, so the process wakes
    // once per batch instead of once per value; handlers still get every value, one call each,
    // in order. 0 (the default) delivers each value at once; at most `Wire.maximumLatency`
    // (10 s). When several consumers of a stream disagree, the shortest latency wins. A pull
    // (`accelerometerData`, …) reads the latest value received, which may then be as old.

    public var accelerometerMaximumReportLatency: TimeInterval {
        get { sync { latencies[.accelerometer] ?? 0 } }
        set { setLatency(newValue, for: .accelerometer) }
    }
    public var gyroMaximumReportLatency: TimeInterval {
        get { sync { latencies[.gyro] ?? 0 } }
        set { setLatency(newValue, for: .gyro) }
    }
    public var magnetometerMaximumReportLatency: TimeInterval {
        get { sync { latencies[.magnetometer] ?? 0 } }
        set { setLatency(newValue, for: .magnetometer) }
    }
    public var deviceMotionMaximumReportLatency: TimeInterval {
        get { sync { latencies[.deviceMotion] ?? 0 } }
        set { setLatency(newValue, for: .deviceMotion) }
    }
    public var headingMaximumReportLatency: TimeInterval {
        get { sync { latencies[.heading] ?? 0 } }
        set { setLatency(newValue, for: .heading) }
    }

    /// A latency as the protocol accepts it: 0 (also for NaN and negative values) to
    /// `Wire.maximumLatency`.
    static func clampedLatency(_ latency: TimeInterval) -> Double {
        latency > 0 ? min(latency, Wire.maximumLatency) : 0
    }

    // MARK: - Availability (false while motiond is unreachable)

    public var isAccelerometerAvailable: Bool { isAvailable(.accelerometer) }
    public var isGyroAvailable: Bool { isAvailable(.gyro) }
    public var isMagnetometerAvailable: Bool { isAvailable(.magnetometer) }
    /// Device motion needs the accelerometer and the gyroscope (the arbitrary frames).
    public var isDeviceMotionAvailable: Bool { isAvailable(.deviceMotion) }
    /// An ambient light sensor (``observeLight(interval:on:_:)``).
    public var isLightAvailable: Bool { isAvailable(.light) }
    /// A proximity sensor with a known near level (``observeProximity(on:_:)``).
    public var isProximityAvailable: Bool { isAvailable(.proximity) }
    /// A convertible's two accelerometers, display and base (``observeHinge(interval:on:_:)``,
    /// ``observePosture(on:_:)``).
    public var isHingeAvailable: Bool { isAvailable(.hinge) }

    /// The reference frames motiond can serve now (empty while it is unreachable), like
    /// `CMMotionManager.availableAttitudeReferenceFrames()`.
    public func availableAttitudeReferenceFrames() -> AttitudeReferenceFrame {
        awaitConnection()
        return sync { hello?.frames ?? [] }
    }

    /// What motiond's access policy gives this process (nil while it is unreachable).
    public var access: AccessGrant? {
        awaitConnection()
        return sync { hello?.access }
    }

    // MARK: - State, confined to `queue`

    let queue = DispatchQueue(label: "motionclient.manager")
    private(set) lazy var link = DaemonLink(path: path, queue: queue) { [weak self] event in self?.handle(event) }
    private var hello: Hello?
    private var sensors: [SensorKind: SensorState] = [:]
    /// Who uses each stream here.
    var consumers: [StreamName: [Int: Consumer]] = [:]
    private var nextConsumer = 1
    /// What each stream is subscribed as at the daemon now.
    private var subscribed: [StreamName: Wanted] = [:]
    /// The Core Motion-style update intervals.
    var intervals: [StreamName: Double] = [:]
    /// The Core Motion-style updates' maximum report latencies.
    var latencies: [StreamName: Double] = [:]
    /// Options of the one device-motion and the one heading subscription.
    var deviceMotionFrame = AttitudeReferenceFrame.xArbitraryZVertical
    var headingOptions = (filter: 1.0, orientation: HeadingOrientation.portrait)
    /// Latest values, for pulling.
    var latest: [StreamName: ServerMessage] = [:]
    var currentOrientation = DeviceOrientation.unknown
    /// Nesting of begin/endGeneratingDeviceOrientationNotifications.
    var orientationNotificationCount = 0
    private var lastTimestamp: [StreamName: Double] = [:]
    /// The current outage, which consumers were told of (once per outage): nil while connected.
    private var outage: MotionClientError?
    /// Streams whose consumers were told a sensor is unavailable (once per episode).
    private var unavailableReported: Set<StreamName> = []
    /// Told of every connection (nil) and every outage (why), once each.
    private var connectionObservers: [Int: (MotionClientError?) -> Void] = [:]
    /// Signalled when a connection attempt has an outcome, for ``awaitConnection()``.
    private var connectionWaiters: [DispatchSemaphore] = []
    private var attempted = false

    /// One local user of a stream: a push handler, a pull, an async sequence, an observer.
    struct Consumer {
        /// Seconds between values for sample streams (nil: every value).
        var interval: Double?
        var decimator: Decimator?
        /// Sample streams: seconds its values may be late (0: at once).
        var latency: Double
        /// Gets each value it is due, or an error (on the manager's queue: it forwards to
        /// the user's queue itself).
        let deliver: (Result<ServerMessage, MotionClientError>) -> Void
        /// Told (after `deliver` had the error) when the manager ends it: its stream's sensor is
        /// absent as its updates start (a sequence throws).
        var ended: ((MotionClientError) -> Void)?
    }

    /// What a stream is subscribed as at the daemon.
    private struct Wanted: Equatable {
        var interval: Double?
        var frame: AttitudeReferenceFrame?
        var headingFilter: Double?
        var headingOrientation: HeadingOrientation?
        var latency: Double?
    }

    func sync<T>(_ body: () -> T) -> T {
        queue.assertNotOnQueue()
        return queue.sync(execute: body)
    }

    // MARK: - Consumers

    /// Adds a consumer of `stream` (on `queue`); returns its id.
    func addConsumer(_ stream: StreamName, interval: Double?, latency: Double = 0, id fixed: Int? = nil,
                     ended: ((MotionClientError) -> Void)? = nil,
                     deliver: @escaping (Result<ServerMessage, MotionClientError>) -> Void) -> Int {
        queue.assertOnQueue()
        let id = fixed ?? nextConsumer
        if fixed == nil { nextConsumer += 1 }
        // Started before the consumer joins: a first attempt that fails at once is told below,
        // once, not also as it happens.
        link.start()
        consumers[stream, default: [:]][id] = Consumer(interval: interval, decimator: interval.map { Decimator(interval: $0) },
                                                       latency: latency, deliver: deliver, ended: ended)
        resubscribe(stream)
        if !link.isConnected, let outage { deliver(.failure(outage)) }
        return id
    }

    /// Removes a consumer (on `queue`); the stream is unsubscribed when it was the last.
    func removeConsumer(_ stream: StreamName, id: Int) {
        queue.assertOnQueue()
        guard consumers[stream]?.removeValue(forKey: id) != nil else { return }
        if consumers[stream]?.isEmpty == true {
            consumers[stream] = nil
            // Nobody follows it any more: what is known of it goes stale from now on.
            latest[stream] = nil
            if stream == .orientation { currentOrientation = .unknown }
        }
        resubscribe(stream)
    }

    /// Removes a consumer from any thread (a sequence's termination, a cancelled observation).
    func removeConsumerLater(_ stream: StreamName, id: Int) {
        queue.async { [self] in removeConsumer(stream, id: id) }
    }

    /// Makes the daemon's subscription of `stream` match the consumers (on `queue`).
    func resubscribe(_ stream: StreamName) {
        queue.assertOnQueue()
        let wanted = want(stream)
        guard wanted != subscribed[stream] else { return }
        subscribed[stream] = wanted
        guard link.isConnected else { return }
        guard let wanted else {
            link.send({ .unsubscribe(id: $0, stream: stream) }, reply: { _ in })
            return
        }
        link.send({ id in
            .subscribe(ClientRequest.Subscription(id: id, stream: stream, interval: wanted.interval, frame: wanted.frame,
                                                  headingFilter: wanted.headingFilter, headingOrientation: wanted.headingOrientation,
                                                  latency: wanted.latency))
        }, reply: { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.subscribed(_, available: false, _)):
                sensorAbsent(for: stream)
            case .failure(let error) where error.isPermanent:
                // Refused (access, frame): every consumer learns why; the subscription is not retried.
                for consumer in consumers[stream]?.values.map({ $0 }) ?? [] { consumer.deliver(.failure(error)) }
            default:
                break
            }
        })
    }

    /// The daemon lacks a sensor `stream` needs as its subscription starts (on `queue`): every
    /// consumer is told ``MotionClientError/sensorUnavailable(_:_:)`` once. The updates of a
    /// sample stream end there, as Core Motion's of a sensor the device lacks (`is…Active`
    /// false, sequences throw); a state or event stream's stay, and start when the sensor
    /// appears. A sensor lost while updates run only pauses them (the availability stream tells them).
    private func sensorAbsent(for stream: StreamName) {
        queue.assertOnQueue()
        let needed = stream.sensors(frame: stream == .deviceMotion ? deviceMotionFrame : nil).sorted { $0.rawValue < $1.rawValue }
        guard let users = consumers[stream], let kind = needed.first(where: { sensors[$0]?.available != true }) ?? needed.first else { return }
        let error = MotionClientError.sensorUnavailable(kind, sensors[kind].flatMap { $0.available ? nil : $0.reason } ?? "motiond has none")
        // The availability stream may have told them already.
        let told = !unavailableReported.insert(stream).inserted
        if !told { for consumer in users.values { consumer.deliver(.failure(error)) } }
        guard stream.isSampleStream else { return }
        consumers[stream] = nil
        latest[stream] = nil
        unavailableReported.remove(stream)
        for consumer in users.values { consumer.ended?(error) }
        resubscribe(stream)
    }

    private func want(_ stream: StreamName) -> Wanted? {
        guard let users = consumers[stream], !users.isEmpty else { return nil }
        var wanted = Wanted()
        if stream.isSampleStream {
            wanted.interval = users.values.compactMap(\.interval).min() ?? Self.defaultInterval
            let latency = users.values.map(\.latency).min() ?? 0
            wanted.latency = latency > 0 ? latency : nil
        }
        if stream == .deviceMotion { wanted.frame = deviceMotionFrame }
        if stream == .heading {
            wanted.headingFilter = headingOptions.filter
            wanted.headingOrientation = headingOptions.orientation
        }
        return wanted
    }

    private func setInterval(_ interval: TimeInterval, for stream: StreamName) {
        let seconds = max(interval, Wire.minimumInterval)
        queue.async { [self] in
            intervals[stream] = seconds
            changeOwnConsumer(of: stream) {
                $0.interval = seconds
                $0.decimator = Decimator(interval: seconds)
            }
        }
    }

    private func setLatency(_ latency: TimeInterval, for stream: StreamName) {
        let seconds = Self.clampedLatency(latency)
        queue.async { [self] in
            latencies[stream] = seconds
            changeOwnConsumer(of: stream) { $0.latency = seconds }
        }
    }

    /// The Core Motion-style consumer (id 0) of `stream` follows a changed option, when its
    /// updates run; the daemon's subscription follows it (on `queue`).
    private func changeOwnConsumer(of stream: StreamName, _ change: (inout Consumer) -> Void) {
        guard var own = consumers[stream]?[Self.ownConsumer] else { return }
        change(&own)
        consumers[stream]?[Self.ownConsumer] = own
        resubscribe(stream)
    }

    // MARK: - Connection

    /// Calls `handler` on `queue` whenever the connection to motiond comes up (nil) or goes
    /// down or cannot be made (why: once per outage, while the manager keeps retrying), until
    /// the observation is cancelled. Starts connecting.
    public func observeConnection(on queue: OperationQueue, _ handler: @escaping @Sendable (MotionClientError?) -> Void) -> MotionObservation {
        let id = sync {
            let id = nextConsumer
            nextConsumer += 1
            // Started before the observer joins: a first attempt that fails at once is told
            // below, once, not also as it happens.
            link.start()
            connectionObservers[id] = { error in queue.addOperation { handler(error) } }
            if link.isConnected {
                queue.addOperation { handler(nil) }
            } else if let outage {
                queue.addOperation { handler(outage) }
            }
            return id
        }
        return MotionObservation { [weak self] in self?.removeConnectionObserverLater(id) }
    }

    private func removeConnectionObserverLater(_ id: Int) {
        queue.async { [self] in connectionObservers[id] = nil }
    }

    private func isAvailable(_ stream: StreamName) -> Bool {
        awaitConnection()
        return sync {
            guard hello != nil else { return false }
            return stream.sensors(frame: .xArbitraryZVertical).allSatisfy { sensors[$0]?.available == true }
        }
    }

    /// Connects if nothing has yet, and waits (up to a second) for the outcome of the first
    /// attempt, so the first availability question gets a real answer. Never on `queue`.
    func awaitConnection() {
        let semaphore: DispatchSemaphore? = sync {
            link.start()
            guard !attempted else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            connectionWaiters.append(semaphore)
            return semaphore
        }
        _ = semaphore?.wait(timeout: .now() + 1)
    }

    private func handle(_ event: DaemonLink.Event) {
        queue.assertOnQueue()
        switch event {
        case .connected(let hello):
            self.hello = hello
            sensors = hello.sensors
            outage = nil
            unavailableReported = []
            subscribed = [:]
            // Sensors that come and go keep availability (and handlers) current.
            link.send({ .subscribe(ClientRequest.Subscription(id: $0, stream: .availability)) }, reply: { _ in })
            for stream in consumers.keys { resubscribe(stream) }
            for observer in connectionObservers.values { observer(nil) }
            connected()
        case .disconnected(let error):
            hello = nil
            sensors = [:]
            subscribed = [:]
            if outage == nil {
                outage = error
                for users in consumers.values { for consumer in users.values { consumer.deliver(.failure(error)) } }
                for observer in connectionObservers.values { observer(error) }
            }
            connected()
        case .message(let message):
            receive(message)
        }
    }

    /// A connection attempt has an outcome: wake those waiting for it.
    private func connected() {
        queue.assertOnQueue()
        attempted = true
        for semaphore in connectionWaiters { semaphore.signal() }
        connectionWaiters = []
    }

    private func receive(_ message: ServerMessage) {
        queue.assertOnQueue()
        switch message {
        case .availability(let kind, let state):
            sensors[kind] = state
            for stream in consumers.keys where stream.sensors(frame: stream == .deviceMotion ? deviceMotionFrame : nil).contains(kind) {
                if state.available {
                    unavailableReported.remove(stream)
                } else if unavailableReported.insert(stream).inserted {
                    for consumer in consumers[stream]?.values.map({ $0 }) ?? [] {
                        consumer.deliver(.failure(.sensorUnavailable(kind, state.reason)))
                    }
                }
            }
            deliver(message, on: .availability, timestamp: nil)
        case .event(.orientation(let orientation, _)):
            // Changes only: a reconnection repeats the current orientation.
            guard orientation != currentOrientation else { return }
            currentOrientation = orientation
            deliver(message, on: .orientation, timestamp: nil)
        default:
            guard let stream = message.stream else { return }
            // A state repeated (a reconnection sends the current one again) is no change.
            if !stream.isSampleStream, let previous = latest[stream], Self.sameState(message, previous) { return }
            if stream.isPullable { latest[stream] = message }
            deliver(message, on: stream, timestamp: stream.isSampleStream ? message.timestamp : nil)
        }
    }

    /// The current state of a state stream, when known (on `queue`).
    func currentState(of stream: StreamName) -> ServerMessage? {
        switch stream {
        case .orientation:
            return currentOrientation == .unknown ? nil : .event(.orientation(currentOrientation, timestamp: 0))
        case .tilt, .proximity, .calibration, .posture:
            return latest[stream]
        default:
            return nil
        }
    }

    /// Whether two messages of a state stream carry the same state (their times aside).
    private static func sameState(_ message: ServerMessage, _ previous: ServerMessage) -> Bool {
        switch (message, previous) {
        case (.event(.tilt(let tilt, _)), .event(.tilt(let before, _))): return tilt == before
        case (.event(.posture(let posture, _)), .event(.posture(let before, _))): return posture == before
        case (.proximity(let proximity), .proximity(let before)): return proximity.near == before.near
        case (.calibration(let accuracy, let needed), .calibration(let before, let neededBefore)):
            return accuracy == before && needed == neededBefore
        default: return false
        }
    }

    /// Hands `message` to the consumers of `stream` it is due for.
    private func deliver(_ message: ServerMessage, on stream: StreamName, timestamp: Double?) {
        queue.assertOnQueue()
        guard let users = consumers[stream] else { return }
        var spacing = Wire.hardwarePeriods.upperBound
        if let timestamp {
            if let last = lastTimestamp[stream], timestamp > last { spacing = timestamp - last }
            lastTimestamp[stream] = timestamp
        }
        for (id, var consumer) in users {
            if let timestamp, var decimator = consumer.decimator {
                let due = decimator.admit(timestamp, period: spacing)
                consumer.decimator = decimator
                consumers[stream]?[id] = consumer
                guard due else { continue }
            }
            consumer.deliver(.success(message))
        }
    }
}
