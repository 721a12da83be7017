/// Typed error codes of replies (`{"ok":false,"error":{"code":…,"message":…}}`). Wire names
/// are the case names; a client should treat an unknown code like `internalError`.
public enum ErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The line is not a JSON object.
    case malformedJSON
    /// The line is longer than ``Wire/maximumLineLength``; the connection is closed.
    case lineTooLong
    /// `op` names no operation of this protocol version.
    case unknownOp
    /// `stream` names no stream.
    case unknownStream
    /// A field the operation needs is absent.
    case missingField
    /// A field has the wrong type or an unacceptable value (the message names it).
    case invalidValue
    /// `unsubscribe` for a stream the connection is not subscribed to.
    case notSubscribed
    /// `get` before any value of the stream exists.
    case noSample
    /// `get` on an event stream, which has no latest value.
    case notPullable
    /// The reference frame cannot be served (no magnetometer, no declination).
    case frameUnavailable
    /// The access policy does not let this connection have the stream (the message says what
    /// it may have; the hello's `access` lists it). Also sent, without an id and followed by
    /// a goodbye, to a connection the policy refuses outright.
    case accessDenied
    /// Too many bad requests: the connection is closed after this reply.
    case tooManyErrors
    /// The daemon failed in a way that is not the client's fault.
    case internalError
}

/// A protocol error: what is wrong, with a sentence naming the thing.
public struct ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
