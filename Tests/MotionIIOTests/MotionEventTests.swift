@testable import MotionIIO
import Testing

/// The pure parts of motion wake-up: event attribute names as drivers spell them, which events
/// are armed, and the decoding of `struct iio_event_data` records.
@Suite("Motion events: names, choice, records")
struct MotionEventTests {
    @Test("enable attributes of real drivers parse into kind, direction and axes; falling and foreign ones do not")
    func parseNames() {
        let cases: [(String, MotionEventOffer.Kind, MotionEventOffer.Direction, String)] = [
            ("in_accel_x_mag_rising_en", .magnitude, .rising, "x"),                    // mma8452
            ("in_accel_z_thresh_either_en", .threshold, .either, "z"),                 // kxcjk-1013, st_lsm6dsx
            ("in_accel_y_roc_either_en", .rateOfChange, .either, "y"),                 // bmc150-accel
            ("in_accel_x&y&z_thresh_rising_en", .threshold, .rising, "x&y&z"),         // adxl372
            ("in_accel_mag_referenced_rising_en", .referencedMagnitude, .rising, ""),  // adxl367, bma400
            ("in_accel_thresh_rising_en", .threshold, .rising, ""),
            ("in_accel_x|y|z_mag_adaptive_rising_en", .adaptiveMagnitude, .rising, "x|y|z"),
        ]
        for (name, kind, direction, axes) in cases {
            let parsed = MotionEventOffer.parse(enable: name)
            #expect(parsed?.kind == kind, "\(name)")
            #expect(parsed?.direction == direction, "\(name)")
            #expect(parsed?.axes == axes, "\(name)")
        }
        for name in ["in_accel_x&y&z_mag_falling_en", "in_accel_mag_rising_value", "in_anglvel_x_thresh_rising_en",
                     "in_accel_gesture_singletap_en", "in_steps_change_en", "in_accel_w_mag_rising_en", "in_accel_scale"] {
            #expect(MotionEventOffer.parse(enable: name) == nil, "\(name)")
        }
    }

    @Test("info attributes: per axis before shared by type; absent ones stay nil")
    func infoAttributes() {
        let files = ["in_accel_x_mag_rising_en", "in_accel_y_mag_rising_en", "in_accel_mag_rising_value", "in_accel_mag_rising_period",
                     "in_accel_y_mag_rising_value", "in_accel_x&y&z_mag_falling_en", "in_accel_scale"]
        let offers = MotionEventOffer.offers(in: files)
        #expect(offers.map(\.enable) == ["in_accel_x_mag_rising_en", "in_accel_y_mag_rising_en"])
        #expect(offers.map(\.value) == ["in_accel_mag_rising_value", "in_accel_y_mag_rising_value"])
        #expect(offers.map(\.period) == ["in_accel_mag_rising_period", "in_accel_mag_rising_period"])
        #expect(offers.allSatisfy { $0.timeout == nil && $0.hysteresis == nil && $0.scale == nil })
    }

    @Test("the kind relative to rest wins; every axis of it is armed; rising before either")
    func choice() {
        let offers = MotionEventOffer.offers(in: ["in_accel_x_thresh_either_en", "in_accel_y_thresh_either_en", "in_accel_x_roc_either_en",
                                                  "in_accel_y_roc_either_en", "in_accel_z_roc_either_en", "in_accel_thresh_rising_en"])
        #expect(MotionWakeup.choose(from: offers).map(\.enable) == ["in_accel_x_roc_either_en", "in_accel_y_roc_either_en", "in_accel_z_roc_either_en"])
        let thresholds = offers.filter { $0.kind == .threshold }
        #expect(MotionWakeup.choose(from: thresholds).map(\.enable) == ["in_accel_thresh_rising_en"])
        #expect(MotionWakeup.choose(from: []).isEmpty)
    }

    @Test("an iio_event_data record decodes into its code's fields and a boot-time timestamp")
    func decodeRecord() {
        // IIO_MOD_EVENT_CODE(IIO_ACCEL, 0, IIO_MOD_Z, IIO_EV_TYPE_MAG, IIO_EV_DIR_RISING), as mma8452 pushes it.
        let code: UInt64 = 1 << 56 | 1 << 48 | 3 << 40 | 3 << 32
        let nanoseconds: Int64 = 1_234_500_000_000
        var bytes: [UInt8] = []
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: nanoseconds.littleEndian) { bytes += $0 }
        let event = bytes.withUnsafeBytes { IIOEvent(record: $0, clockOffset: -1000, arrival: 99) }
        #expect(event.kind == .magnitude)
        #expect(event.direction == 1)
        #expect(event.channelType == 3)
        #expect(event.modifier == 3)
        #expect(event.channel == 0 && event.channel2 == 0 && !event.isDifferential)
        #expect(event.nanoseconds == nanoseconds)
        #expect(abs(event.timestamp - 234.5) < 1e-9)
        let unknownClock = bytes.withUnsafeBytes { IIOEvent(record: $0, clockOffset: nil, arrival: 99) }
        #expect(unknownClock.timestamp == 99)
    }

    @Test("IIO_GET_EVENT_FD_IOCTL is _IOR('i', 0x90, int)")
    func ioctlNumber() {
        #expect(IIOEventStream.getEventFD == 0x8004_6990)
    }
}
