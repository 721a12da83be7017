/// Text that must be UTF-8 (a trace, a configuration file), checked strictly so that an error
/// can point at the first byte that is not.
public enum UTF8Text {
    /// The offset (from 0) of the first byte of `bytes` that is not part of valid UTF-8; nil
    /// when every byte is.
    public static func firstInvalidByte(_ bytes: some Sequence<UInt8>) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }
}
