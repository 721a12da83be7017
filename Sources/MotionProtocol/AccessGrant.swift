import MotionCore

/// What one connection may receive: the daemon's access policy decides it from the peer's
/// credentials when the client connects, and the hello's `access` field carries it, so a
/// client knows before it asks (docs/PROTOCOL.md, "Access").
///
/// Raw accelerometer and gyroscope data at high rates is a known side channel (keystrokes,
/// speech), so only trusted clients get everything; a screen-rotation helper needs no more than
/// the orientation.
public struct AccessGrant: Sendable, Hashable, CustomStringConvertible {
    /// Why the connection got what it got. Wire names are the case names.
    public enum Tier: String, Sendable, Hashable, CaseIterable {
        /// Root, the daemon's own user or a member of the configured group: every stream at
        /// any rate.
        case full
        /// A process of the active local session (the person at the device): every stream,
        /// at most at the configured rate.
        case activeSession
        /// Everybody else: orientation, tilt, shake and availability only.
        case coarse
    }

    public var tier: Tier
    /// The streams it may subscribe to and get.
    public var streams: Set<StreamName>
    /// Seconds: the shortest interval its subscriptions are granted, and the least sample-time
    /// between two different values its `get`s return. ``Wire/minimumInterval`` unless the
    /// policy caps the rate.
    public var minimumInterval: Double

    public init(tier: Tier, streams: Set<StreamName>, minimumInterval: Double) {
        self.tier = tier
        self.streams = streams
        self.minimumInterval = max(minimumInterval, Wire.minimumInterval)
    }

    /// Every stream at any rate.
    public static let full = AccessGrant(tier: .full, streams: Set(StreamName.allCases), minimumInterval: Wire.minimumInterval)

    /// The streams that carry no raw motion: enough to rotate a screen or react to a shake.
    public static let coarseStreams: Set<StreamName> = [.orientation, .tilt, .shake, .availability]

    /// Orientation, tilt, shake and availability.
    public static let coarse = AccessGrant(tier: .coarse, streams: coarseStreams, minimumInterval: Wire.minimumInterval)

    /// Every stream, at most `rate` values per second (Hz, > 0).
    public static func activeSession(rate: Double) -> AccessGrant {
        AccessGrant(tier: .activeSession, streams: Set(StreamName.allCases), minimumInterval: 1 / rate)
    }

    /// Whether the grant is a rate cap below the protocol's own limit.
    public var capsRate: Bool { minimumInterval > Wire.minimumInterval }

    /// `request` as this connection may make it: a subscription's interval raised to
    /// ``minimumInterval`` (the reply says what was granted, as for any clamped interval).
    /// Throws `accessDenied` for a stream outside ``streams``.
    public func admit(_ request: ClientRequest) throws(ProtocolError) -> ClientRequest {
        switch request {
        case .subscribe(var subscription):
            try check(subscription.stream)
            if capsRate, subscription.stream != .availability, subscription.stream != .calibration {
                subscription.interval = max(subscription.interval ?? minimumInterval, minimumInterval)
            }
            return .subscribe(subscription)
        case .get(_, let stream, _, _):
            try check(stream)
            return request
        case .unsubscribe, .status:
            return request
        }
    }

    private func check(_ stream: StreamName) throws(ProtocolError) {
        guard !streams.contains(stream) else { return }
        let allowed = StreamName.allCases.filter(streams.contains).map(\.rawValue).joined(separator: ", ")
        throw ProtocolError(.accessDenied, "\(stream): not available to this connection (\(tier.rawValue) access: \(allowed))")
    }

    /// `coarse (orientation, tilt, shake, availability)`, `activeSession (every stream, at most 50 Hz)`.
    public var description: String {
        let what = streams == Set(StreamName.allCases)
            ? "every stream" : StreamName.allCases.filter(streams.contains).map(\.rawValue).joined(separator: ", ")
        return "\(tier.rawValue) (\(what)\(capsRate ? ", at most \(DecimalText.shortest(1 / minimumInterval)) Hz" : ""))"
    }

    func write(into writer: inout JSONWriter) {
        writer.field("tier", tier.rawValue)
        writer.raw("streams", JSONWriter.array(StreamName.allCases.filter(streams.contains).map(\.rawValue)))
        writer.field("minimumInterval", minimumInterval)
    }
}
