/// One record read from a device's IIO event descriptor (`struct iio_event_data`: a 64-bit
/// event code and a 64-bit timestamp, 16 bytes): which event fired, on which channel, when.
///
/// The code's bit fields (`include/uapi/linux/iio/events.h`): type at bit 56, differential
/// flag at 55, direction at 48, modifier at 40, channel type at 32, second channel at 16,
/// channel at 0.
public struct IIOEvent: Sendable, Hashable, CustomStringConvertible {
    /// The raw event code.
    public var code: UInt64
    /// The kernel's timestamp, nanoseconds on the device's `current_timestamp_clock`.
    public var nanoseconds: Int64
    /// Seconds since boot (CLOCK_BOOTTIME): the kernel timestamp converted, or the arrival
    /// time when the device's clock is unknown.
    public var timestamp: Double

    /// Size of one record.
    static let size = 16

    /// `enum iio_event_type`: 0 thresh, 1 mag, 2 roc, 3 thresh_adaptive, 4 mag_adaptive,
    /// 5 change, 6 mag_referenced, 7 gesture.
    public var type: Int { Int((code >> 56) & 0xFF) }
    /// `enum iio_event_direction`: 0 either, 1 rising, 2 falling, 3 none.
    public var direction: Int { Int((code >> 48) & 0x7F) }
    /// `enum iio_chan_type`: 3 is IIO_ACCEL.
    public var channelType: Int { Int((code >> 32) & 0xFF) }
    /// `enum iio_modifier`: 1 x, 2 y, 3 z, 7 x&y&z, 11 x|y|z.
    public var modifier: Int { Int((code >> 40) & 0xFF) }
    public var channel: Int { Int(code & 0xFFFF) }
    public var channel2: Int { Int((code >> 16) & 0xFFFF) }
    public var isDifferential: Bool { (code >> 55) & 1 == 1 }

    /// The motion kind, when the record is one of the kinds ``MotionEventOffer`` arms.
    public var kind: MotionEventOffer.Kind? { MotionEventOffer.Kind.allCases.first { $0.code == type } }

    /// Decodes one record (host byte order, as the kernel writes it); `clockOffset` turns the
    /// kernel timestamp into boot time (`nil`: stamped with `arrival`).
    init(record: UnsafeRawBufferPointer, clockOffset: Double?, arrival: Double) {
        let nanoseconds = record.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        code = record.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        self.nanoseconds = nanoseconds
        timestamp = clockOffset.map { Double(nanoseconds) / 1e9 + $0 } ?? arrival
    }

    public var description: String {
        "event type \(kind?.rawValue ?? String(type)) direction \(direction) on channel type \(channelType) modifier \(modifier) at \(timestamp)"
    }
}
