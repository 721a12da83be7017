import Dispatch
import Logging
import MotionCore
import MotionSync

/// `replay:FILE.csv` — plays a trace (DESIGN.md trace format) as if it were hardware.
///
/// The file is read as a stream, a row at a time as it is replayed, so a trace of any length
/// starts at once and memory stays flat. `.realtime` paces samples by the trace's timestamps,
/// rebased onto the boot clock at start; `.asFastAsPossible` emits the records as fast as the
/// pipeline takes them (``fastBatch`` rows at a time) with the trace's own timestamps (offline
/// tools). Only requested kinds are emitted, at the trace's own rate. Every kind the trace holds
/// is reported available from the start (idle until requested); when the trace ends every kind
/// is reported unavailable, the end is logged and ``whenEnded(_:)``'s handler runs.
///
/// Rows that cannot be replayed are skipped, counted and logged (the first
/// ``individualWarnings`` one by one, all of them in the summary at the end): a row with no
/// finite sensor reading (all NaN), and a malformed row (too few cells, a time or value that is
/// not a number). A gap longer than ``longestGap`` between consecutive rows, or a time earlier
/// than the row before, is a discontinuity: it is replayed as a pause of
/// ``discontinuityPause`` and logged, and the replay goes on from the new time, so timestamps
/// keep increasing and nothing sleeps through an absurd gap.
// @unchecked: the `var`s below are confined to `queue` (start, update and stop enter it; its
// timer and the reading run on it; the confined methods assert it in debug builds), which the
// compiler cannot see; `make check-tsan` runs the replay tests.
public final class ReplaySource: MotionSource, @unchecked Sendable {
    public enum Pacing: Sendable {
        case realtime
        case asFastAsPossible
    }

    /// The longest gap between consecutive rows replayed as it is, seconds.
    public static let longestGap = 10.0
    /// How a longer gap, or a time going back, is replayed: a pause of this many seconds.
    public static let discontinuityPause = 0.1
    /// Rows emitted per turn as fast as possible; the next turn waits until the pipeline has
    /// taken them, so a long trace never piles up in its queue.
    public static let fastBatch = 1024
    /// Skipped rows and discontinuities logged one by one; the rest are only counted.
    public static let individualWarnings = 5

    /// What a finished replay did.
    public struct Summary: Sendable, Hashable, CustomStringConvertible {
        public var uri: String
        /// Rows replayed (each gave at least one sample).
        public var rows = 0
        /// Rows skipped because none of their sensor readings was a finite number.
        public var rowsWithoutReadings = 0
        /// Rows skipped because they could not be read.
        public var malformedRows = 0
        /// Gaps longer than ``ReplaySource/longestGap`` and times going back.
        public var discontinuities = 0
        /// Why reading stopped early, when it did (a read error).
        public var failure: String?
        /// The first problems, each naming its line.
        public var problems: [String] = []

        public var description: String {
            var parts = ["\(rows) rows replayed"]
            if rowsWithoutReadings > 0 { parts.append("\(rowsWithoutReadings) rows without a finite reading skipped") }
            if malformedRows > 0 { parts.append("\(malformedRows) malformed rows skipped") }
            if discontinuities > 0 { parts.append("\(discontinuities) time jumps replayed as \(DecimalText.shortest(ReplaySource.discontinuityPause)) s pauses") }
            if let failure { parts.append("reading stopped early: \(failure)") }
            return "the replay of \(uri) ended (end of the trace): " + parts.joined(separator: ", ")
        }
    }

    public let uri: String
    public let path: String
    /// The sensors the trace has columns for.
    public let kinds: Set<SensorKind>
    private let layout: TraceReader.Layout
    private let pacing: Pacing
    private let logger: Logger?
    private let queue = DispatchQueue(label: "motiond.replay")
    // Confined to `queue`.
    private var delivery: (queue: DispatchQueue, handler: SourceHandler)?
    private var ended: (@Sendable (Summary) -> Void)?
    private var requested = Set<SensorKind>()
    private var announced: [SensorKind: SensorAvailability] = [:]
    private var lines: TraceLines?
    /// The next record to emit, already stamped.
    private var pending: (record: TraceRecord, timestamp: Double)?
    private var finished = false
    private var generation = 0
    /// Timestamps are `base.timestamp + (time - base.time)`; a discontinuity moves the base.
    private var base = (timestamp: 0.0, time: 0.0)
    private var previous: (time: Double, timestamp: Double)?
    private var summary: Summary

    /// Opens the trace and reads its header and first row: a missing file, a bad header or a
    /// trace without a single row to replay is an error (naming the line). Later rows are read
    /// as they are replayed.
    public init(path: String, pacing: Pacing = .realtime, logger: Logger? = nil) throws(SourceError) {
        uri = "replay:\(path)"
        self.path = path
        self.pacing = pacing
        self.logger = logger
        summary = Summary(uri: uri)
        let lines = try TraceLines(path: path)
        guard let header = lines.next() else { throw .trace(path: path, reason: TraceError.missingHeader.description) }
        do {
            layout = try TraceReader.Layout(header: header)
        } catch {
            throw .trace(path: path, reason: error.description)
        }
        kinds = layout.kinds
        while let line = lines.next() {
            do {
                if try layout.row(line, number: lines.number) != nil { return }
            } catch {
                throw .trace(path: path, reason: error.description)
            }
        }
        throw .trace(path: path, reason: "no records after the header")
    }

    /// `handler` runs once on the delivery queue when the trace has ended, after its last
    /// samples and the unavailability reports.
    public func whenEnded(_ handler: @escaping @Sendable (Summary) -> Void) {
        queue.assertNotOnQueue()
        queue.sync { ended = handler }
    }

    public func start(_ request: SourceRequest, queue target: DispatchQueue, handler: @escaping SourceHandler) throws(SourceError) {
        let lines = try TraceLines(path: path)
        _ = lines.next()
        queue.assertNotOnQueue()
        queue.sync {
            delivery = (target, handler)
            requested = []
            announced = [:]
            self.lines = lines
            pending = nil
            finished = false
            previous = nil
            summary = Summary(uri: uri)
            select(Set(request.periods.keys))
            pump()
        }
    }

    public func update(_ request: SourceRequest) throws(SourceError) {
        queue.assertNotOnQueue()
        queue.sync { select(Set(request.periods.keys)) }
    }

    /// Sets the kinds to emit and announces every kind whose availability changed.
    private func select(_ kinds: Set<SensorKind>) {
        queue.assertOnQueue()
        requested = kinds
        for kind in SensorKind.allCases {
            let available = self.kinds.contains(kind) && !finished
            let reason = !self.kinds.contains(kind) ? "\(uri) has no \(kind) columns"
                : !available ? "replay of \(uri) finished"
                : kinds.contains(kind) ? "replaying \(uri)" : "in \(uri), not requested"
            announce(kind, SensorAvailability(isAvailable: available, reason: reason))
        }
    }

    private func announce(_ kind: SensorKind, _ availability: SensorAvailability) {
        queue.assertOnQueue()
        guard let delivery, announced[kind] != availability else { return }
        announced[kind] = availability
        delivery.queue.async { delivery.handler([.availability(kind, availability)]) }
    }

    public func stop() {
        queue.assertNotOnQueue()
        queue.sync {
            generation += 1
            delivery = nil
            lines = nil
        }
    }

    /// Emits every record that is due (as fast as possible: the next batch), then waits until
    /// the next one is due (the pipeline has taken the batch); at the end of the trace, ends.
    private func pump() {
        queue.assertOnQueue()
        guard let delivery, !finished else { return }
        var samples: [Sample] = []
        // One burst per turn for the samples, queued before whatever follows them.
        func flush() {
            guard !samples.isEmpty else { return }
            let handler = delivery.handler, batch = samples
            delivery.queue.async { handler(batch.map { .sample($0) }) }
            samples = []
        }
        var rows = 0
        while true {
            guard let (record, timestamp) = pending ?? nextRecord() else {
                flush()
                end()
                return
            }
            pending = (record, timestamp)
            let current = generation
            switch pacing {
            case .realtime:
                let now = BootClock.now()
                if timestamp > now {
                    flush()
                    queue.asyncAfter(deadline: .now() + (timestamp - now)) { [weak self] in
                        guard let self, generation == current else { return }
                        pump()
                    }
                    return
                }
            case .asFastAsPossible:
                if rows == Self.fastBatch {
                    flush()
                    // Continues once the pipeline has handled what is queued so far.
                    delivery.queue.async { [weak self] in
                        self?.queue.async { [weak self] in
                            guard let self, generation == current else { return }
                            pump()
                        }
                    }
                    return
                }
            }
            pending = nil
            rows += 1
            summary.rows += 1
            samples += record.samples(timestamp: timestamp).filter { requested.contains($0.kind) }
        }
    }

    /// The next row with a reading, stamped; nil at the end of the trace. Skips (and counts)
    /// rows without readings and malformed rows.
    private func nextRecord() -> (TraceRecord, Double)? {
        guard let lines else { return nil }
        while let line = lines.next() {
            let row: (record: TraceRecord, droppedReadings: Int)?
            do {
                row = try layout.row(line, number: lines.number)
            } catch {
                summary.malformedRows += 1
                problem("\(error) — row skipped")
                continue
            }
            guard let record = row?.record else { continue }
            if record.accelerometer == nil && record.gyroscope == nil && record.magnetometer == nil && record.baseAccelerometer == nil
                && record.baseGyroscope == nil {
                summary.rowsWithoutReadings += 1
                problem("line \(lines.number): no finite sensor reading — row skipped")
                continue
            }
            return (record, stamp(record.time, line: lines.number))
        }
        summary.failure = lines.failure
        return nil
    }

    /// The timestamp of a row at trace time `time`: the boot clock (realtime) or the trace's
    /// own time (as fast as possible), moved on by a short pause at a discontinuity.
    private func stamp(_ time: Double, line: Int) -> Double {
        if let previous {
            let gap = time - previous.time
            if !(gap >= 0 && gap <= Self.longestGap) {
                summary.discontinuities += 1
                let what = gap < 0 ? "goes back from \(previous.time) to \(time)" : "jumps \(gap) s from \(previous.time) to \(time)"
                problem("line \(line): the time \(what): replayed as a \(DecimalText.shortest(Self.discontinuityPause)) s pause")
                base = (previous.timestamp + Self.discontinuityPause, time)
            }
        } else {
            // Realtime: the first row plays now (offsets from it, so a huge first time loses no precision).
            base = pacing == .realtime ? (BootClock.now(), time) : (0, 0)
        }
        let timestamp = base.timestamp + (time - base.time)
        previous = (time, timestamp)
        return timestamp
    }

    /// Records a problem; logs it while there have been few.
    private func problem(_ text: String) {
        if summary.problems.count < Self.individualWarnings {
            summary.problems.append(text)
            logger?.warning("\(uri): \(text)")
            if summary.problems.count == Self.individualWarnings {
                logger?.warning("\(uri): further skipped rows and time jumps are only counted (the total is logged when the replay ends)")
            }
        }
    }

    /// The end of the trace: every kind unavailable, the summary logged and handed over.
    private func end() {
        queue.assertOnQueue()
        finished = true
        lines = nil
        for kind in SensorKind.allCases where kinds.contains(kind) {
            announce(kind, SensorAvailability(isAvailable: false, reason: "replay of \(uri) finished"))
        }
        let summary = summary
        logger?.notice("\(summary)")
        if let ended, let delivery {
            delivery.queue.async { ended(summary) }
        }
    }
}
