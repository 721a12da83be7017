import Dispatch
import Logging
import MotionCore
import MotionSync

/// The source for this machine's hardware (`local:`): its IIO devices (``IIOSource``) and,
/// for a kind IIO does not have, the input and hwmon sensors iio-sensor-proxy reads too
/// (``PlatformSource``: a lis3lv02d-style input accelerometer, an input proximity switch,
/// applesmc's light sensor).
///
/// Each kind is served by one of the two: the IIO sensor while IIO has one available, else the
/// platform one. The platform source is asked only for the kinds IIO does not serve, so a
/// sensor is never read twice; when IIO's availability of a kind changes, the platform
/// source's request follows (on this source's own queue: the handler runs on the consumer's
/// queue, which must not wait for a source). The consumer sees one availability per kind, of
/// the source serving it, and only that source's samples.
public final class LocalSource: MotionSource, Sendable {
    public let uri: String
    private let iio: IIOSource
    private let platform: PlatformSource
    private let queue = DispatchQueue(label: "motiond.local")
    private let state = Lock(State())

    private enum Part: Sendable {
        case iio, platform
    }

    private struct State {
        var request = SourceRequest.none
        var reported: [Part: [SensorKind: SensorAvailability]] = [:]
        /// Which part serves each kind, and what the consumer was told of it.
        var serving: [SensorKind: (part: Part, availability: SensorAvailability)] = [:]
        /// The kinds the platform source was last asked for.
        var platformKinds: Set<SensorKind> = []

        /// The kinds IIO serves now.
        var iioKinds: Set<SensorKind> {
            Set(reported[.iio, default: [:]].filter(\.value.isAvailable).keys)
        }

        /// The part that serves `kind`: IIO while it has it, else the platform source while it
        /// has it; with neither, the platform source's reason if it had one (its device stopped
        /// answering), else IIO's (none found).
        func server(of kind: SensorKind) -> (part: Part, availability: SensorAvailability)? {
            let iio = reported[.iio]?[kind], platform = reported[.platform]?[kind]
            if let iio, iio.isAvailable { return (.iio, iio) }
            if let platform { return (.platform, platform) }
            return iio.map { (.iio, $0) }
        }

        /// What the platform source is asked for: the request without IIO's kinds.
        func platformRequest() -> SourceRequest {
            let kinds = iioKinds
            guard var request = try? SourceRequest(request.periods.filter { !kinds.contains($0.key) }) else { return .none }
            request.wakeIntervals = self.request.wakeIntervals
            request.latencies = self.request.latencies
            return request
        }
    }

    public init(iio: IIOSource, platform: PlatformSource) {
        uri = iio.uri
        self.iio = iio
        self.platform = platform
    }

    /// What `--list-sensors` shows: the IIO devices, then the input and hwmon sensors. An IIO
    /// context that cannot be opened (a machine without IIO) is listed as skipped when there are
    /// input or hwmon sensors, and is the error when there is nothing at all.
    public func listing(source: String) throws(SourceError) -> SensorListing {
        let platform = PlatformDiscovery.discover()
        var result: SensorDiscovery.Result
        do {
            result = try iio.discover()
        } catch {
            guard !platform.sensors.isEmpty else { throw error }
            result = SensorDiscovery.Result(sensors: [], skipped: [SkippedSensor(device: uri, reason: "\(error)")])
        }
        var listing = SensorListing(source: source, result: result)
        listing.add(platform: platform)
        return listing
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        state.withLock { $0.request = request }
        // The platform source first, reading nothing: what it finds is announced before IIO says
        // it has no such kind (no unavailable-then-available at start); then IIO, then the
        // platform source is asked for what IIO does not serve.
        try platform.start(.none, queue: target) { [weak self] events in self?.take(events, from: .platform, handler) }
        try iio.start(request, queue: target) { [weak self] events in self?.take(events, from: .iio, handler) }
        try replanPlatform()
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        state.withLock { $0.request = request }
        try iio.update(request)
        try replanPlatform()
    }

    public func stop() {
        platform.stop()
        iio.stop()
    }

    /// ``updatePlatform()`` on `queue`, from outside it.
    private func replanPlatform() throws(SourceError) {
        let result: Result<Void, SourceError> = queue.sync {
            do throws(SourceError) {
                try updatePlatform()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Asks the platform source for what IIO does not serve; on `queue`.
    private func updatePlatform() throws(SourceError) {
        let request = state.withLock { state in
            state.platformKinds = Set(state.platformRequest().periods.keys)
            return state.platformRequest()
        }
        try platform.update(request)
    }

    /// Passes on a part's events: samples of the kinds it serves, and each kind's availability
    /// as the serving part has it. On the consumer's queue.
    private func take(_ events: [SourceEvent], from part: Part, _ handler: SourceHandler) {
        let (passed, replan) = state.withLock { state -> ([SourceEvent], Bool) in
            var passed: [SourceEvent] = []
            passed.reserveCapacity(events.count)
            var reported = false
            // A burst is one reader's: a batch's scans of one sensor are looked up once.
            var looked: (kind: SensorKind, passes: Bool)?
            for event in events {
                switch event {
                case .sample(let sample):
                    if looked?.kind != sample.kind { looked = (sample.kind, state.serving[sample.kind]?.part == part) }
                    if looked?.passes == true { passed.append(event) }
                case .availability(let kind, let availability):
                    state.reported[part, default: [:]][kind] = availability
                    reported = true
                    guard let server = state.server(of: kind) else { continue }
                    if state.serving[kind]?.part != server.part || state.serving[kind]?.availability != server.availability {
                        state.serving[kind] = server
                        passed.append(.availability(kind, server.availability))
                    }
                }
            }
            // Only an availability changes what the platform source is asked for (a new request
            // replans itself): samples alone, every reading, need no look.
            guard reported, part == .iio else { return (passed, false) }
            return (passed, Set(state.platformRequest().periods.keys) != state.platformKinds)
        }
        if !passed.isEmpty { handler(passed) }
        if replan {
            // Only periods the consumer's request already passed are passed on: nothing to throw.
            queue.async { [weak self] in try? self?.updatePlatform() }
        }
    }
}
