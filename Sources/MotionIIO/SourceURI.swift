/// A parsed `--source` URI (DESIGN.md): `local:` (this machine's IIO devices, the default),
/// `ip:HOST[:PORT]` (an iiod server), `sim:` (the simulated IMU) or `replay:FILE.csv`.
public enum SourceURI: Sendable, Hashable, CustomStringConvertible {
    case local
    case network(String)
    case simulated
    case replay(path: String)

    public init(parsing text: String) throws(SourceError) {
        if text == "local:" || text == "local" {
            self = .local
        } else if text.hasPrefix("ip:"), text.count > 3 {
            self = .network(String(text.dropFirst(3)))
        } else if text == "sim:" || text == "sim" {
            self = .simulated
        } else if text.hasPrefix("replay:"), text.count > 7 {
            self = .replay(path: String(text.dropFirst(7)))
        } else {
            throw .invalidURI(text)
        }
    }

    /// The libiio URI for IIO sources.
    public var iioURI: String? {
        switch self {
        case .local: return "local:"
        case .network(let host): return "ip:\(host)"
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .local: return "local:"
        case .network(let host): return "ip:\(host)"
        case .simulated: return "sim:"
        case .replay(let path): return "replay:\(path)"
        }
    }
}
