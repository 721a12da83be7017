import Foundation

/// Builds umockdev scripts that feed `/dev/iio:deviceN`: each `r DELAY BYTES` line makes the
/// reader's `read()` receive those bytes after DELAY ms (script-format.txt). Scans are packed
/// by the tests byte by byte, following the kernel's scan layout.
struct ScanScript {
    private var data = Data()

    /// One read of `bytes` after `delay` milliseconds.
    mutating func read(_ bytes: [UInt8], delay: Int) {
        data.append(contentsOf: Array("r \(delay) ".utf8))
        data.append(contentsOf: Self.escape(bytes))
        data.append(UInt8(ascii: "\n"))
    }

    func write(to url: URL) throws {
        try data.write(to: url)
    }

    /// Control bytes become `^` + (byte + 64); `^` itself becomes "^`".
    static func escape(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for byte in bytes {
            if byte < 32 {
                out += [UInt8(ascii: "^"), byte + 64]
            } else if byte == UInt8(ascii: "^") {
                out += [UInt8(ascii: "^"), UInt8(ascii: "`")]
            } else {
                out.append(byte)
            }
        }
        return out
    }

    static func bigEndian(_ value: Int16) -> [UInt8] {
        let bits = UInt16(bitPattern: value)
        return [UInt8(bits >> 8), UInt8(bits & 0xFF)]
    }

    static func littleEndian(_ value: Int16) -> [UInt8] {
        let bits = UInt16(bitPattern: value)
        return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }
    }

    static func littleEndian(_ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return (0..<8).map { UInt8((bits >> (8 * UInt64($0))) & 0xFF) }
    }
}
