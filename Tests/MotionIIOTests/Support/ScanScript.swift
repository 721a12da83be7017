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

    /// An mpu6050 scan with accelerometer, gyroscope and timestamp enabled: accel x/y/z
    /// (index 0–2) and anglvel x/y/z (4–6) as be:s16 in bytes 0–11, padding to the 8-byte
    /// alignment of the le:s64 timestamp (index 7) in bytes 16–23: 24 bytes.
    static func mpu6050Scan(accel: [Int16], gyro: [Int16], nanoseconds: Int64) -> [UInt8] {
        (accel + gyro).flatMap(bigEndian) + [0, 0, 0, 0] + littleEndian(nanoseconds)
    }

    /// One 3-axis le:s16 sensor plus timestamp (st_lsm6dsx): bytes 0–5, 2 bytes padding, the
    /// le:s64 timestamp in 8–15: 16 bytes.
    static func lsm6dsxScan(_ axes: [Int16], nanoseconds: Int64) -> [UInt8] {
        axes.flatMap(littleEndian) + [0, 0] + littleEndian(nanoseconds)
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
