import Foundation

/// Builds umockdev scripts that feed `/dev/iio:deviceN`: each `r DELAY BYTES` line makes the
/// reader's `read()` receive those bytes DELAY ms after the line before (script-format.txt).
/// The first line's delay counts from the script's loading, not from the device's opening:
/// bytes nobody reads wait in the node, and a buffer opened late reads them as a backlog.
/// Scans are packed by the tests byte by byte, following the kernel's scan layout.
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

    /// The mpu6050 ramp the buffered tests feed: scan i holds accel raw (i, −i, 1000 + i) and
    /// gyro raw (10i, 20, −30) at kernel time 5 s + i × 10 ms, one every 5 ms (the first after
    /// `firstDelay` ms).
    static func mpu6050Ramp(count: Int, firstDelay: Int = 5) -> ScanScript {
        var script = ScanScript()
        for i in 0..<count {
            script.read(mpu6050Scan(accel: [Int16(i), Int16(-i), Int16(1000 + i)], gyro: [Int16(10 * i), 20, -30],
                                    nanoseconds: Int64(5_000_000_000 + i * 10_000_000)), delay: i == 0 ? firstDelay : 5)
        }
        return script
    }

    /// What motiond must deliver for scan i of ``mpu6050Ramp(count:firstDelay:)``: the kernel
    /// timestamp (already CLOCK_BOOTTIME), and the raw values through the fixture's mount
    /// matrix [0 1 0; −1 0 0; 0 0 1] as a specific-force chip's (the accelerometer's made
    /// improper, [0 1 0; −1 0 0; 0 0 −1]; the gyroscope's its negation) and scales: acceleration
    /// (−i, −i, −1000 − i) × 0.000598 m/s² in G, rotation rate (−20, 10i, −30) × 0.001064724 rad/s.
    static func mpu6050RampExpected(_ i: Int) -> (timestamp: Double, acceleration: [Double], rotationRate: [Double]) {
        let s = 0.000598 / 9.80665, r = 0.001064724
        return (Double(5_000_000_000 + i * 10_000_000) / 1e9, [Double(-i) * s, Double(-i) * s, Double(-1000 - i) * s],
                [-20 * r, Double(10 * i) * r, -30 * r])
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
