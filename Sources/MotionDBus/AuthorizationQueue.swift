/// The polkit checks of the D-Bus face, bounded so that no bus client can crowd out the others.
///
/// Every `Claim…`/`Release…` call costs one `CheckAuthorization` call on motiond's single bus
/// connection, and the bus caps the replies one connection may wait for at once (dbus-daemon's
/// `max_replies_per_connection`, 128 on Debian's system bus): beyond it the bus refuses the call
/// itself. So at most ``perClient`` checks of one client and ``limit`` in all are asked at a
/// time; the rest wait, at most ``waitingPerClient`` per client (more are refused at once, to
/// that client only), and are asked in turn, one client after the other, so a client with many
/// calls waiting delays another client's call by one round at most.
///
/// A client that leaves the bus while its checks are asked is remembered until their answers
/// come, so an answer for a client that is gone is recognised and dropped (nothing is claimed
/// for it). Pure bookkeeping, generic over what a waiting call is.
struct AuthorizationQueue<Call> {
    /// Checks of one client asked at once.
    static var perClient: Int { 4 }
    /// Calls of one client waiting for their turn; more are refused.
    static var waitingPerClient: Int { 32 }
    /// Checks asked at once by default (well under the 128 replies Debian's bus lets one
    /// connection wait for, so the face's own calls still fit).
    static var defaultLimit: Int { 32 }

    /// Checks asked at once in all: ``defaultLimit``, lowered to what the bus accepted when it
    /// refuses one for having too many.
    private(set) var limit = Self.defaultLimit
    /// Checks asked and not yet answered.
    private(set) var asked = 0
    private var clients: [String: Client] = [:]
    /// Clients with calls waiting, the next to be served first.
    private var turns: [String] = []

    private struct Client {
        var asked = 0
        var waiting: [Call] = []
        var departed = false
    }

    /// What to do with a new call.
    enum Admission: Equatable {
        /// Ask polkit now (counted as asked).
        case ask
        /// It waits for its turn (``next()`` hands it out).
        case wait
        /// Too many of this client's calls wait already: refuse it.
        case refuse
    }

    /// Takes a new call of `client`.
    mutating func admit(_ call: Call, from client: String) -> Admission {
        var entry = clients[client, default: Client()]
        defer { clients[client] = entry }
        if entry.waiting.isEmpty, entry.asked < Self.perClient, asked < limit {
            entry.asked += 1
            asked += 1
            return .ask
        }
        guard entry.waiting.count < Self.waitingPerClient else { return .refuse }
        entry.waiting.append(call)
        if !turns.contains(client) { turns.append(client) }
        return .wait
    }

    /// The next waiting call to ask polkit about now (counted as asked), taking the clients in
    /// turn; nil when none may be asked yet.
    mutating func next() -> (call: Call, client: String)? {
        guard asked < limit, let index = turns.firstIndex(where: { clients[$0].map { $0.asked < Self.perClient } ?? false }) else { return nil }
        let client = turns.remove(at: index)
        var entry = clients[client]!
        let call = entry.waiting.removeFirst()
        entry.asked += 1
        asked += 1
        clients[client] = entry
        if !entry.waiting.isEmpty { turns.append(client) }
        return (call, client)
    }

    /// polkit answered a check of `client`; false when the client has left the bus meanwhile
    /// (the answer is for nobody: drop it).
    mutating func answered(_ client: String) -> Bool {
        guard var entry = clients[client] else { return false }
        entry.asked -= 1
        asked -= 1
        let present = !entry.departed
        clients[client] = entry.asked == 0 && entry.waiting.isEmpty ? nil : entry
        return present
    }

    /// The bus refused to pass a check of `client` on, having too many of our calls waiting
    /// for replies: the call waits again, first in its client's line, and fewer are asked at
    /// once from now on (as many as are still asked, at least one). False when the client has
    /// left (the call is dropped).
    mutating func busRefused(_ call: Call, from client: String) -> Bool {
        guard answered(client) else { return false }
        limit = max(1, asked)
        var entry = clients[client, default: Client()]
        entry.waiting.insert(call, at: 0)
        clients[client] = entry
        turns.removeAll { $0 == client }
        turns.insert(client, at: 0)
        return true
    }

    /// `client` left the bus: its waiting calls are dropped (returned); answers still to come
    /// for it will be recognised as for nobody.
    @discardableResult
    mutating func departed(_ client: String) -> [Call] {
        guard var entry = clients[client] else { return [] }
        let dropped = entry.waiting
        turns.removeAll { $0 == client }
        entry.waiting = []
        entry.departed = true
        clients[client] = entry.asked == 0 ? nil : entry
        return dropped
    }

    /// Whether the queue knows `client` (has calls of it asked or waiting).
    func knows(_ client: String) -> Bool { clients[client] != nil }
}
