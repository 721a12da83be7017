import MotionProtocol

/// A message for one recipient: for a socket client encoded as its JSON line (shared by every
/// client that gets the same message), for one of the daemon's own subscribers the value itself.
enum Addressed: Sendable {
    case client(ClientID, OutgoingMessage)
    case local(LocalRecipient, ServerMessage)

    var recipient: Recipient {
        switch self {
        case .client(let id, _): .client(id)
        case .local(let local, _): .local(local)
        }
    }

    var message: ServerMessage {
        switch self {
        case .client(_, let outgoing): outgoing.message
        case .local(_, let message): message
        }
    }

    /// The same message as part of a batch whose stream may have `capacity` messages queued
    /// (``OutgoingMessage/batched(capacity:)``); a local recipient has no send queue.
    func batched(capacity: Int) -> Addressed {
        guard case .client(let id, let outgoing) = self else { return self }
        return .client(id, outgoing.batched(capacity: capacity))
    }
}

/// One message on its way to any number of recipients: encoded once, the first time a socket
/// client is among them, and never when only the daemon's own subscribers get it.
struct Parcel {
    let message: ServerMessage
    private var encoded: OutgoingMessage?

    init(_ message: ServerMessage) {
        self.message = message
    }

    /// The message addressed to `recipient`.
    mutating func addressed(to recipient: Recipient) -> Addressed {
        switch recipient {
        case .local(let local):
            return .local(local, message)
        case .client(let id):
            let outgoing = encoded ?? OutgoingMessage(message)
            encoded = outgoing
            return .client(id, outgoing)
        }
    }
}
