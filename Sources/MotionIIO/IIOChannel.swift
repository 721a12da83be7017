import CLibIIO
import Glibc

/// One channel of an ``IIODevice`` (`accel_x`, `anglvel_z`, `timestamp`).
// @unchecked: `pointer` is a libiio channel of `device`, which the compiler cannot check; it
// follows its device's confinement (see ``IIODevice``): one reader's thread at a time.
public struct IIOChannel: @unchecked Sendable, CustomStringConvertible {
    let pointer: OpaquePointer
    public let device: IIODevice

    /// libiio's id: `<type>[<index>]_<modifier>`, e.g. `accel_x`.
    public var id: String { String(cString: iio_channel_get_id(pointer)) }
    public var isOutput: Bool { iio_channel_is_output(pointer) }
    /// True when the channel can be captured through the buffer (has scan elements).
    public var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    /// Position in a scan (`scan_elements/<ch>_index`), or −1.
    public var scanIndex: Int { Int(iio_channel_get_index(pointer)) }

    /// The sysfs attribute prefix of this channel, e.g. `in_accel_x`.
    public var sysfsPrefix: String { "\(isOutput ? "out" : "in")_\(id)" }

    /// Storage format in a scan: storage bits, real bits, shift, sign, endianness.
    public var format: Format {
        let f = iio_channel_get_data_format(pointer)!.pointee
        return Format(storageBits: Int(f.length), bits: Int(f.bits), shift: Int(f.shift),
                      isSigned: f.is_signed, isBigEndian: f.is_be, repeats: Int(max(1, f.repeat)))
    }

    /// A scan element's storage format (`be:s16/16>>0`).
    public struct Format: Sendable, Hashable, CustomStringConvertible {
        public var storageBits: Int
        public var bits: Int
        public var shift: Int
        public var isSigned: Bool
        public var isBigEndian: Bool
        public var repeats: Int

        public var description: String {
            "\(isBigEndian ? "be" : "le"):\(isSigned ? "s" : "u")\(bits)/\(storageBits)\(repeats > 1 ? "X\(repeats)" : "")>>\(shift)"
        }
    }

    /// Reads a channel attribute by its libiio name (`raw`, `scale`, `mount_matrix`,
    /// `sampling_frequency`), which covers the separate and shared-by-type files, locally and
    /// through iiod. Locally a full file name (`in_accel_x_scale`) works too.
    public func read(_ attribute: String) throws(IIOError) -> String {
        try IIOError.readText("read \(attribute) of \(self)") { iio_channel_attr_read(pointer, attribute, $0, $1) }
    }

    /// Writes a channel attribute by its libiio name.
    public func write(_ attribute: String, _ value: String) throws(IIOError) {
        try IIOError.check(iio_channel_attr_write(pointer, attribute, value), "write '\(value)' to \(attribute) of \(self)")
    }

    /// The sysfs file behind a channel attribute name (`scale` → `in_accel_scale`), if any.
    public func filename(of attribute: String) -> String? {
        iio_channel_attr_get_filename(pointer, attribute).map { String(cString: $0) }
    }

    public func enable() { iio_channel_enable(pointer) }
    public func disable() { iio_channel_disable(pointer) }

    /// This channel at a byte offset in a buffer's scans, its format read once: what a reader
    /// decodes every scan with, looking nothing up and counting no reference per scan.
    // @unchecked: `pointer` is the channel's (see ``IIOChannel``), used by its reader's thread.
    public struct ScanField: @unchecked Sendable {
        private let pointer: OpaquePointer
        /// Where the channel's data starts in a scan, bytes.
        public let offset: Int
        private let storageBits: Int
        private let isSigned: Bool

        public init(_ channel: IIOChannel, offset: Int) {
            pointer = channel.pointer
            self.offset = offset
            let format = channel.format
            (storageBits, isSigned) = (format.storageBits, format.isSigned)
        }

        /// The channel's value in `scan`: libiio byte-swaps, shifts, masks to the real bits and
        /// sign-extends (`iio_channel_convert`); the result is the raw integer.
        public func decode(_ scan: UnsafeRawPointer) -> Int64 {
            var out: UInt64 = 0
            withUnsafeMutableBytes(of: &out) { dst in
                iio_channel_convert(pointer, dst.baseAddress, scan + offset)
            }
            switch (storageBits, isSigned) {
            case (8, true): return Int64(Int8(truncatingIfNeeded: out))
            case (16, true): return Int64(Int16(truncatingIfNeeded: out))
            case (32, true): return Int64(Int32(truncatingIfNeeded: out))
            case (8, false): return Int64(UInt8(truncatingIfNeeded: out))
            case (16, false): return Int64(UInt16(truncatingIfNeeded: out))
            case (32, false): return Int64(UInt32(truncatingIfNeeded: out))
            default: return Int64(bitPattern: out)
            }
        }
    }

    public var description: String { "\(sysfsPrefix) of \(device)" }
}
