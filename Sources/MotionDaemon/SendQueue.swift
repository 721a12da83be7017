import DequeModule
import MotionProtocol

/// One client's bounded queue of outgoing messages. A client that reads slowly or not
/// at all costs at most `sampleCapacity` messages or `sampleByteCapacity` bytes of samples,
/// `batchedByteCapacity` bytes of batched samples, `eventCapacity` events, one message per
/// state key and the replies to its requests in flight:
/// - samples beyond either sample limit push out the oldest sample, counted per stream;
/// - batched samples (a subscription with a `latency`) have room for two batches of their
///   stream (the capacity each carries) within `batchedByteCapacity`: a client that reads
///   each batch before the next is due loses none; beyond that the oldest batched sample of
///   the stream (past the byte bound: of any stream) goes, counted per stream;
/// - a state (orientation, calibration, a sensor's availability) replaces the queued older one
///   of the same key: the client always learns the latest state, never a stale one;
/// - events beyond `eventCapacity` push out the oldest event, counted;
/// - replies and control messages are always kept.
/// Counted drops become `dropped` messages once the queue has room again, or every second
/// /// while it has not (``takeDropReports(now:)``). Messages handed out for writing
/// (``takePending(limit:)``) stay untouched until ``consume(_:)`` says how much of them was
/// written: a message being written is never removed or replaced under the writer.
struct SendQueue: Sendable {
    let sampleCapacity: Int
    let sampleByteCapacity: Int
    let eventCapacity: Int
    let batchedByteCapacity: Int
    private var entries: Deque<OutgoingMessage> = []
    /// Bytes of the first entry already written.
    private(set) var headOffset = 0
    /// Entries at the front handed out by ``takePending(limit:)`` and not yet consumed.
    private var inTransit = 0
    private var samples = 0
    private var sampleBytes = 0
    private var events = 0
    private var batched: [StreamName: Int] = [:]
    private var batchedBytes = 0
    /// Drops not yet reported, and all drops since the connection opened, per stream.
    private var unreported: [StreamName: Int] = [:]
    private(set) var totalDropped: [StreamName: Int] = [:]
    private var lastReport: Double?
    /// Seconds between drop reports while a client stays behind.
    static let reportInterval = 1.0

    /// A client's limits: 512 samples, or 128 KiB of them (about 2.3 s of device motion at
    /// 100 Hz, 5 s of a raw sensor), and 256 events. A thousand lagging clients cost at most
    /// 128 MiB of samples.
    static let defaultSampleCapacity = 512
    static let defaultSampleByteCapacity = 128 * 1024
    static let defaultEventCapacity = 256
    /// The hard bound on batched samples: 4 MiB, room for two 10 s batches
    /// (``Wire/maximumLatency``) of every sample stream at 100 Hz at once (about 1.4 MB a
    /// batch: device motion lines are up to about 690 bytes, headings 270, raw samples 150).
    /// Batched lines are shared with every other client of the same values, so this bounds
    /// what one client can hold, not what it adds.
    static let defaultBatchedByteCapacity = 4 * 1024 * 1024

    init(sampleCapacity: Int = defaultSampleCapacity, sampleByteCapacity: Int = defaultSampleByteCapacity,
         eventCapacity: Int = defaultEventCapacity, batchedByteCapacity: Int = defaultBatchedByteCapacity) {
        self.sampleCapacity = sampleCapacity
        self.sampleByteCapacity = sampleByteCapacity
        self.eventCapacity = eventCapacity
        self.batchedByteCapacity = batchedByteCapacity
    }

    var isEmpty: Bool { entries.isEmpty }
    /// Nothing queued and no drop to report: a new message would be the next thing written.
    var isIdle: Bool { entries.isEmpty && unreported.isEmpty }
    var count: Int { entries.count }
    var queuedBytes: Int { entries.reduce(0) { $0 + $1.bytes.count } - headOffset }

    mutating func enqueue(_ message: OutgoingMessage) {
        switch message.delivery {
        case .sample:
            while samples >= sampleCapacity || sampleBytes + message.bytes.count > sampleByteCapacity,
                  let index = firstRemovable(where: { if case .sample = $0 { true } else { false } }) {
                if case .sample(let old) = entries[index].delivery { count(drop: old) }
                remove(at: index)
            }
            samples += 1
            sampleBytes += message.bytes.count
        case .batched(let stream, let capacity):
            while batched[stream, default: 0] >= capacity, let index = firstRemovable(where: { Self.isBatched($0, of: stream) }) {
                count(drop: stream)
                remove(at: index)
            }
            while batchedBytes + message.bytes.count > batchedByteCapacity, let index = firstRemovable(where: { Self.isBatched($0, of: nil) }) {
                if case .batched(let old, _) = entries[index].delivery { count(drop: old) }
                remove(at: index)
            }
            batched[stream, default: 0] += 1
            batchedBytes += message.bytes.count
        case .event:
            if events >= eventCapacity, let index = firstRemovable(where: { if case .event = $0 { true } else { false } }) {
                if case .event(let old) = entries[index].delivery { count(drop: old) }
                remove(at: index)
            }
            events += 1
        case .state(let key):
            if let index = firstRemovable(where: { $0 == .state(key: key) }) { remove(at: index) }
        case .control, .reply:
            break
        }
        entries.append(message)
    }

    private mutating func count(drop stream: StreamName) {
        unreported[stream, default: 0] += 1
        totalDropped[stream, default: 0] += 1
    }

    /// Whether `delivery` is a batched sample of `stream` (of any stream when nil).
    private static func isBatched(_ delivery: OutgoingMessage.Delivery, of stream: StreamName?) -> Bool {
        guard case .batched(let own, _) = delivery else { return false }
        return stream == nil || own == stream
    }

    /// The first entry matching `predicate` that is neither being written nor partly written.
    private func firstRemovable(where predicate: (OutgoingMessage.Delivery) -> Bool) -> Int? {
        let first = max(inTransit, headOffset > 0 ? 1 : 0)
        guard first < entries.count else { return nil }
        return entries[first...].firstIndex { predicate($0.delivery) }
    }

    private mutating func remove(at index: Int) {
        switch entries[index].delivery {
        case .sample:
            samples -= 1
            sampleBytes -= entries[index].bytes.count
        case .batched(let stream, _):
            batched[stream, default: 0] -= 1
            batchedBytes -= entries[index].bytes.count
        case .event: events -= 1
        default: break
        }
        entries.remove(at: index)
    }

    /// Up to `limit` pending byte ranges, in order, for one write; they stay in the queue,
    /// protected from drops and replacements, until ``consume(_:)``.
    mutating func takePending(limit: Int) -> [ArraySlice<UInt8>] {
        var chunks: [ArraySlice<UInt8>] = []
        chunks.reserveCapacity(min(limit, entries.count))
        for (n, entry) in entries.prefix(limit).enumerated() {
            chunks.append(n == 0 ? entry.bytes[headOffset...] : entry.bytes[...])
        }
        inTransit = chunks.count
        return chunks
    }

    /// Marks `written` bytes of what ``takePending(limit:)`` handed out as sent (the rest may
    /// be dropped or replaced again, except a partly written head); returns how many replies
    /// were completed.
    mutating func consume(_ written: Int) -> Int {
        defer { inTransit = 0 }
        var left = written
        var replies = 0
        while left > 0, let head = entries.first {
            let rest = head.bytes.count - headOffset
            if left < rest {
                headOffset += left
                return replies
            }
            left -= rest
            headOffset = 0
            if head.delivery == .reply { replies += 1 }
            remove(at: 0)
        }
        return replies
    }

    /// `dropped` messages for drops not yet reported, once samples (plain and batched) have
    /// drained to half the capacity, or at least every `reportInterval` seconds for a client that stays behind;
    /// clears them. `now` is any monotonic clock in seconds.
    mutating func takeDropReports(now: Double) -> [OutgoingMessage] {
        guard !unreported.isEmpty else { return [] }
        // The clock starts at the first look: a client that is only briefly behind gets its
        // report once it drains, one that stays behind a second later.
        let since = lastReport ?? now
        lastReport = since
        let drained = samples <= sampleCapacity / 2 && sampleBytes <= sampleByteCapacity / 2 && batchedBytes <= batchedByteCapacity / 2
        guard drained || now - since >= Self.reportInterval else { return [] }
        lastReport = now
        let reports = unreported.sorted { $0.key.rawValue < $1.key.rawValue }.map { stream, count in
            OutgoingMessage(.dropped(stream: stream, count: count, total: totalDropped[stream] ?? count))
        }
        unreported = [:]
        return reports
    }
}
