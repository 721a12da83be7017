/// Who a message of the pipeline is for: a client of the socket, or one of the daemon's own
/// subscribers. The ``Publisher`` keeps subscriptions per recipient; only socket clients get
/// messages encoded as JSON lines (``Addressed``).
enum Recipient: Hashable, Sendable, Comparable, CustomStringConvertible {
    case client(ClientID)
    case local(LocalRecipient)

    /// The daemon's own subscribers first, then clients by number (the order messages for
    /// several recipients are handed on in).
    static func < (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.local(let x), .local(let y)): x.rawValue < y.rawValue
        case (.local, .client): true
        case (.client, .local): false
        case (.client(let x), .client(let y)): x < y
        }
    }

    var description: String {
        switch self {
        case .client(let id): id.description
        case .local(let local): local.description
        }
    }
}

/// The daemon's own subscribers: each takes the pipeline's messages as values, in process
/// (``LocalSubscriber``), and subscribes through the pipeline's typed calls rather than wire
/// requests.
enum LocalRecipient: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The daemon's own printing (`--print-samples`, `--print-motion`): ``Printer``.
    case printer
    /// The D-Bus face: ``SensorProxyBridge``.
    case sensorProxy
    /// The tablet-mode switch: ``TabletModeBridge``.
    case tabletMode

    var description: String {
        switch self {
        case .printer: "local output"
        case .sensorProxy: "the D-Bus face"
        case .tabletMode: "the tablet-mode switch"
        }
    }
}

/// One connection to the socket, as the pipeline knows it: a number, unique for the daemon's
/// lifetime (from 1).
struct ClientID: Hashable, Sendable, Comparable, CustomStringConvertible {
    let raw: UInt64
    static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
    var description: String { "client \(raw)" }
}
