/// Splits a byte stream into lines (LF-terminated; a CR before the LF is dropped) and refuses
/// lines longer than a limit without buffering them: the guard against a peer that never sends
/// a newline.
public struct LineFramer: Sendable {
    public let limit: Int
    private var pending: [UInt8] = []
    private var start = 0

    /// Why ``nextLine()`` stopped.
    public enum Failure: Error, Sendable, Equatable {
        /// A line (or the unterminated rest) exceeds `limit` bytes.
        case lineTooLong
    }

    public init(limit: Int = Wire.maximumLineLength) {
        self.limit = limit
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= pending.count / 2 {
            pending.removeFirst(start)
            start = 0
        }
        pending.append(contentsOf: bytes)
    }

    /// Bytes received and not yet returned as lines.
    public var buffered: Int { pending.count - start }

    /// The next complete line without its terminator, nil when none is complete yet; throws
    /// when a line is longer than `limit` (the stream cannot be resynchronised: close it).
    public mutating func nextLine() throws(Failure) -> ArraySlice<UInt8>? {
        guard let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            // Without its newline the rest is already too long to ever become a line.
            if buffered >= limit { throw .lineTooLong }
            return nil
        }
        guard newline - start < limit else { throw .lineTooLong }
        var end = newline
        if end > start && pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = pending[start..<end]
        start = newline + 1
        return line
    }
}
