import MotionProtocol

/// Where the pipeline's messages go: socket clients' to the server (`outbox`, encoded), the
/// daemon's own subscribers' to them as values (``LocalSubscriber``) — a burst's messages in
/// one call per recipient, in order, the daemon's own first. A message for a local recipient
/// not attached (any more) goes nowhere. Lives on the pipeline queue.
struct MessageRouter: Sendable {
    /// Takes the socket clients' messages of one burst.
    var outbox: @Sendable ([Addressed]) -> Void = { _ in }
    private var local: [LocalRecipient: any LocalSubscriber] = [:]

    /// From now on `subscriber` takes the messages for `recipient`.
    mutating func attach(_ subscriber: any LocalSubscriber, as recipient: LocalRecipient) {
        local[recipient] = subscriber
    }

    /// Nothing more goes to `recipient`.
    mutating func detach(_ recipient: LocalRecipient) {
        local[recipient] = nil
    }

    /// Hands on the messages of one burst.
    func send(_ out: [Addressed]) {
        guard !out.isEmpty else { return }
        // Most bursts are for socket clients alone: handed on as they are, not copied.
        guard out.contains(where: { if case .local = $0 { true } else { false } }) else {
            outbox(out)
            return
        }
        var clients: [Addressed] = []
        var values: [LocalRecipient: [ServerMessage]] = [:]
        for item in out {
            switch item {
            case .client: clients.append(item)
            case .local(let recipient, let message): values[recipient, default: []].append(message)
            }
        }
        for recipient in LocalRecipient.allCases {
            if let messages = values[recipient], let subscriber = local[recipient] { subscriber.deliver(messages) }
        }
        if !clients.isEmpty { outbox(clients) }
    }
}
