import MotionProtocol

/// The values a batching subscription holds back (its `latency`; beyond Core Motion, as
/// Android's maximum report latency): a logger or step counter then wakes once per batch
/// instead of once per value. Values are kept in order, none is dropped, and all of them leave
/// together once the oldest is `latency` old by sample time. Pure: time comes from samples.
struct Batch: Sendable {
    /// Seconds the oldest value may wait (> 0).
    let latency: Double
    /// What each value tells the client's send queue: how many of its stream to keep.
    let queueCapacity: Int
    private var held: [Addressed] = []
    /// Sample time of the oldest value held.
    private var oldest = Double.infinity

    /// Sample timestamps closer than this to the due time count as reaching it (the sum of a
    /// timestamp and a latency is not exact in binary).
    private static let tolerance = 1e-6

    init(latency: Double, queueCapacity: Int) {
        self.latency = latency
        self.queueCapacity = queueCapacity
    }

    /// When the values held are due: the oldest one's time plus the latency (infinity while
    /// nothing is held).
    var due: Double { oldest + latency }

    var count: Int { held.count }

    /// Whether a sample at `t` finds the batch due (the oldest value `latency` old).
    func isDue(at t: Double) -> Bool {
        Self.reached(due, at: t)
    }

    /// Whether a sample at `t` has reached the time `due`.
    static func reached(_ due: Double, at t: Double) -> Bool {
        t >= due - tolerance
    }

    /// Holds `message`, a value of sample time `t`; returns when the batch is due.
    mutating func hold(_ message: Addressed, at t: Double) -> Double {
        if held.isEmpty { oldest = t }
        held.append(message)
        return due
    }

    /// The values held, oldest first, marked for the send queue as batched.
    var released: [Addressed] {
        held.map { $0.batched(capacity: queueCapacity) }
    }
}
