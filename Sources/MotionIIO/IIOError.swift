import CLibIIO
import FoundationEssentials
import Glibc

/// A failed libiio or sysfs operation: the errno code and what was being done.
///
/// libiio returns negative errno values (or NULL with `errno` set); this type keeps the code,
/// names the operation and the thing it touched, and classifies the code for recovery.
public struct IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The positive errno value.
    public let code: Int32
    /// What failed, e.g. `read in_accel_x_raw of iio:device0 (mpu6050)`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = abs(code)
        self.operation = operation
    }

    /// The device is gone or no longer answers: removed (ENODEV, ENOENT, ENXIO) or a bus
    /// error (EIO). Its source reports unavailable and waits for a hot-plug.
    public var isDeviceGone: Bool { [ENODEV, ENOENT, ENXIO, EIO].contains(code) }

    /// Another consumer holds the device's buffer (the char device is single-open).
    public var isBusy: Bool { code == EBUSY }

    /// Nothing arrived in time.
    public var isTimeout: Bool { code == ETIMEDOUT || code == EAGAIN }

    /// The C library's message for the code.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        iio_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(operation): \(message) (errno \(code))" }
}

extension IIOError {
    /// Runs a libiio call that fills a text buffer and returns its length or a negative errno;
    /// returns the text with trailing whitespace removed.
    static func readText(_ operation: @autoclosure () -> String, capacity: Int = 4096, _ call: (UnsafeMutablePointer<CChar>, Int) -> Int) throws(IIOError) -> String {
        var buffer = [CChar](repeating: 0, count: capacity)
        let n = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        guard n >= 0 else { throw IIOError(code: Int32(n), operation: operation()) }
        let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }

    /// Throws for a negative errno result of a libiio call.
    static func check(_ result: Int, _ operation: @autoclosure () -> String) throws(IIOError) {
        guard result >= 0 else { throw IIOError(code: Int32(result), operation: operation()) }
    }
}
