import Dispatch
import FoundationEssentials
import MotionCore

/// `replay:FILE.csv` — plays a trace (DESIGN.md trace format) as if it were hardware.
///
/// `.realtime` paces samples by the trace's timestamps, rebased onto the boot clock at start;
/// `.asFastAsPossible` emits every record at once with the trace's own timestamps (offline
/// tools). Only requested kinds are emitted, at the trace's own rate. Every kind the trace
/// holds is reported available from the start (idle until requested); when the trace ends
/// every kind is reported unavailable.
public final class ReplaySource: MotionSource, @unchecked Sendable {
    public enum Pacing: Sendable {
        case realtime
        case asFastAsPossible
    }

    public let uri: String
    public let trace: TraceReader.Trace
    private let pacing: Pacing
    private let queue = DispatchQueue(label: "motiond.replay")
    // Confined to `queue`.
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var kinds = Set<SensorKind>()
    private var announced: [SensorKind: SensorAvailability] = [:]
    private var next = 0
    private var generation = 0
    private var origin = 0.0

    /// Loads the whole trace; a missing or malformed file is an error naming the line.
    public init(path: String, pacing: Pacing = .realtime) throws(SourceError) {
        uri = "replay:\(path)"
        self.pacing = pacing
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .trace(path: path, reason: "cannot read the file (\(error))")
        }
        do {
            trace = try TraceReader.parse(text)
        } catch {
            throw .trace(path: path, reason: error.description)
        }
        guard !trace.records.isEmpty else { throw .trace(path: path, reason: "no records after the header") }
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        queue.sync {
            delivery = (target, handler)
            kinds = []
            announced = [:]
            next = 0
            origin = BootClock.now() - trace.records[0].time
            select(Set(request.periods.keys))
            pump()
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        queue.sync { select(Set(request.periods.keys)) }
    }

    /// Sets the kinds to emit and announces every kind whose availability changed.
    private func select(_ requested: Set<SensorKind>) {
        kinds = requested
        for kind in SensorKind.allCases {
            let available = trace.kinds.contains(kind) && next < trace.records.count
            let reason = !trace.kinds.contains(kind) ? "\(uri) has no \(kind) columns"
                : !available ? "replay of \(uri) finished"
                : requested.contains(kind) ? "replaying \(uri)" : "in \(uri), not requested"
            announce(kind, SensorAvailability(isAvailable: available, reason: reason))
        }
    }

    private func announce(_ kind: SensorKind, _ availability: SensorAvailability) {
        guard let delivery, announced[kind] != availability else { return }
        announced[kind] = availability
        delivery.queue.async { delivery.handler(.availability(kind, availability)) }
    }

    public func stop() {
        queue.sync {
            generation += 1
            delivery = nil
        }
    }

    /// Emits every record that is due, then sleeps until the next one.
    private func pump() {
        guard let delivery else { return }
        let records = trace.records
        let now = BootClock.now()
        while next < records.count {
            let record = records[next]
            let timestamp: Double
            switch pacing {
            case .asFastAsPossible:
                timestamp = record.time
            case .realtime:
                timestamp = origin + record.time
                if timestamp > now {
                    let current = generation
                    queue.asyncAfter(deadline: .now() + (timestamp - now)) { [weak self] in
                        guard let self, generation == current else { return }
                        pump()
                    }
                    return
                }
            }
            let samples = record.samples(timestamp: timestamp).filter { kinds.contains($0.kind) }
            delivery.queue.async { samples.forEach { delivery.handler(.sample($0)) } }
            next += 1
        }
        for kind in SensorKind.allCases where trace.kinds.contains(kind) {
            announce(kind, SensorAvailability(isAvailable: false, reason: "replay of \(uri) finished"))
        }
    }
}
