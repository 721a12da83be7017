import MotionProtocol

/// What the batching subscriptions hold (a subscription's `latency`), one ``Batch`` per
/// stream and recipient, and when the earliest may be due. The ``Publisher`` holds values here
/// and releases them when due by sample time, when a subscription is replaced or ends, and when
/// a sensor a batch needs becomes unavailable. Pure: time comes from samples.
struct Batches: Sendable {
    private var batches: [Key: Batch] = [:]
    /// The earliest time a batch may be due (infinity: none held; may be early, never late).
    private var nextDue = Double.infinity

    /// A subscription's batch: its stream and recipient.
    struct Key: Hashable, Comparable {
        var stream: StreamName
        var recipient: Recipient

        static func < (a: Self, b: Self) -> Bool {
            a.recipient != b.recipient ? a.recipient < b.recipient : a.stream.rawValue < b.stream.rawValue
        }
    }

    /// Values held, in all.
    var heldCount: Int {
        batches.values.reduce(0) { $0 + $1.count }
    }

    /// Holds `message`, a value of sample time `t`, in the batch of `subscription` (whose
    /// latency is > 0).
    mutating func hold(_ message: Addressed, of subscription: Subscription, at t: Double) {
        let key = Key(stream: subscription.stream, recipient: message.recipient)
        let due = batches[key, default: Batch(latency: subscription.latency, queueCapacity: subscription.batchCapacity)].hold(message, at: t)
        nextDue = min(nextDue, due)
    }

    /// Every batch whose oldest value is `latency` old at `t`, to `out`.
    mutating func releaseDue(at t: Double, into out: inout [Addressed]) {
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

    /// Every batch for which `needs` holds, to `out`.
    mutating func release(where needs: (Key) -> Bool, into out: inout [Addressed]) {
        for key in batches.keys.sorted() where needs(key) { release(key, into: &out) }
    }

    /// What one subscription holds, to `out` (nothing when it holds nothing).
    mutating func release(_ key: Key, into out: inout [Addressed]) {
        guard let batch = batches.removeValue(forKey: key) else { return }
        out.append(contentsOf: batch.released)
    }

    /// Drops what a recipient's batches hold: nobody is left to read it.
    mutating func forget(_ recipient: Recipient) {
        batches = batches.filter { $0.key.recipient != recipient }
    }
}
