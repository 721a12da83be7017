import MotionCore
import MotionProtocol

/// A message encoded once, ready for any number of clients: its bytes (the JSON line with its
/// newline, shared by every queue it is put in) and how a full send queue may treat it.
struct OutgoingMessage: Sendable {
    /// What a full queue may do with the message.
    enum Delivery: Sendable, Hashable {
        /// A sample of a stream: the oldest is dropped first, and the drop is counted.
        case sample(StreamName)
        /// A sample delivered in a batch (a subscription's `latency`): kept as long as at most
        /// `capacity` of its stream are queued (two batches) and the queue's hard bound on
        /// batched bytes holds; beyond either the oldest is dropped, and counted.
        case batched(StreamName, capacity: Int)
        /// The current state of something (`key`): a newer one replaces a queued older one.
        case state(key: String)
        /// An event (shake phase, gesture): kept in order; only past a hard bound is the oldest
        /// dropped, and counted.
        case event(StreamName)
        /// Hello, goodbye and drop reports: always sent.
        case control
        /// The reply to a request: always sent, and it ends the request's time in flight.
        case reply
    }

    let message: ServerMessage
    let bytes: [UInt8]
    let delivery: Delivery

    /// `delivery` overrides the class the message's type implies (an error reply the server
    /// sends itself answers no request in flight: `.control`).
    init(_ message: ServerMessage, delivery: Delivery? = nil) {
        self.message = message
        bytes = Array((message.line + "\n").utf8)
        self.delivery = delivery ?? Self.delivery(of: message)
    }

    private init(message: ServerMessage, bytes: [UInt8], delivery: Delivery) {
        self.message = message
        self.bytes = bytes
        self.delivery = delivery
    }

    /// The same message (the same encoded bytes) as part of a batch whose stream may have
    /// `capacity` messages queued; a message without a stream is returned unchanged.
    func batched(capacity: Int) -> OutgoingMessage {
        guard let stream = message.stream else { return self }
        return OutgoingMessage(message: message, bytes: bytes, delivery: .batched(stream, capacity: capacity))
    }

    /// The class a message's type implies: what a full send queue may do with it, and what the
    /// daemon's printing counts as a sample line.
    static func delivery(of message: ServerMessage) -> Delivery {
        switch message {
        case .reply: return .reply
        case .availability(let kind, _): return .state(key: "availability.\(kind.rawValue)")
        case .calibration: return .state(key: "calibration")
        case .event(.orientation): return .state(key: "orientation")
        case .event(.tilt): return .state(key: "tilt")
        case .event(.posture): return .state(key: "posture")
        case .proximity: return .state(key: "proximity")
        case .event(.shake): return .event(.shake)
        case .event(.gesture): return .event(.gesture)
        case .hello, .dropped, .goodbye: return .control
        case .sample, .deviceMotion, .heading, .hinge: return .sample(message.stream!)
        }
    }
}
