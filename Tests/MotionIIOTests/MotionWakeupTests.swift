import Foundation
@testable import MotionIIO
@testable import TestSupport
import Testing

/// Motion wake-up on emulated accelerometers (`motion-events.umockdev`: an mma8452 and a
/// kxcjk-1013 with the `events/` attributes their drivers create), driven in this process
/// through a live testbed, so it belongs to the serialized testbed suite.
///
/// umockdev cannot raise IIO events nor hand out an event descriptor: what is verified here is
/// discovery, the threshold conversion, the values written and restored, and the clean error
/// where the ioctl is refused. That a real driver accepts these values and raises events on
/// motion is not verified.
extension LiveTestbedTests {
    @Suite("Motion wake-up on emulated hardware")
    struct MotionWakeupTests {
        static let mma8452 = "/sys/devices/platform/soc/i2c-1/1-001d/iio:device0"
        static let kxcjk1013 = "/sys/devices/platform/soc/i2c-2/2-000f/iio:device1"

        /// A testbed with the fixture, a local context on it, and a way to read attributes
        /// straight from the testbed's files (not through the code under test).
        struct Bench {
            let testbed = Testbed()
            let context: IIOContext

            init(_ fixture: String = "motion-events.umockdev") throws {
                try testbed.add(try Emulation.fixtureText(fixture))
                context = try IIOContext(uri: "local:")
            }

            func device(_ id: String) throws -> IIODevice {
                try #require(context.device(named: id))
            }

            func attribute(_ syspath: String, _ name: String) throws -> String {
                let text = try String(contentsOfFile: testbed.root + syspath + "/" + name, encoding: .utf8)
                return text.trimmingCharacters(in: CharacterSet(charactersIn: "\0").union(.whitespacesAndNewlines))
            }
        }

        @Test("discovery: mma8452's transient events with their own scale, kxcjk-1013's per-axis wake-up with the channel scale",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func discovery() throws {
            let bench = try Bench()
            let mma = try MotionWakeup.offers(of: try bench.device("iio:device0"))
            #expect(mma.map(\.enable) == ["in_accel_x_mag_rising_en", "in_accel_y_mag_rising_en", "in_accel_z_mag_rising_en"])
            #expect(mma.allSatisfy { $0.kind == .magnitude && $0.direction == .rising })
            #expect(mma.allSatisfy { $0.value == "in_accel_mag_rising_value" && $0.period == "in_accel_mag_rising_period" })
            #expect(mma.allSatisfy { $0.scale == 0.617742 && $0.scaleSource == "events/in_accel_scale" })

            let kx = try MotionWakeup.offers(of: try bench.device("iio:device1"))
            #expect(kx.map(\.enable) == ["in_accel_x_thresh_either_en", "in_accel_y_thresh_either_en", "in_accel_z_thresh_either_en"])
            #expect(kx.map(\.value) == ["in_accel_x_thresh_either_value", "in_accel_y_thresh_either_value", "in_accel_z_thresh_either_value"])
            #expect(kx.allSatisfy { $0.scale == 0.009582 && $0.scaleSource == "in_accel_scale" })
        }

        @Test("arming writes the threshold in raw units and the period, then enables; disarming restores every value",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func armAndDisarm() throws {
            let bench = try Bench()
            let device = try bench.device("iio:device0")
            let offers = MotionWakeup.choose(from: try MotionWakeup.offers(of: device))
            // 0.1 G = 0.980665 m/s² ÷ 0.617742 m/s² per unit = 1.59 → 2.
            let arming = try MotionEventArming(device: device, offers: offers, threshold: 0.1, duration: 0.05)
            let events = Self.mma8452 + "/events"
            #expect(try bench.attribute(events, "in_accel_mag_rising_value") == "2")
            #expect(try bench.attribute(events, "in_accel_mag_rising_period") == "0.05")
            for axis in ["x", "y", "z"] {
                #expect(try bench.attribute(events, "in_accel_\(axis)_mag_rising_en") == "1")
            }
            #expect(try bench.attribute(events, "in_accel_x&y&z_mag_falling_en") == "0", "free fall is not motion")
            #expect(arming.changes.map(\.file) == ["events/in_accel_mag_rising_value", "events/in_accel_mag_rising_period",
                                                   "events/in_accel_x_mag_rising_en", "events/in_accel_y_mag_rising_en", "events/in_accel_z_mag_rising_en"])
            #expect(arming.changes.first?.old == "127")

            try arming.disarm()
            #expect(try bench.attribute(events, "in_accel_mag_rising_value") == "127")
            #expect(try bench.attribute(events, "in_accel_mag_rising_period") == "0.000000")
            for axis in ["x", "y", "z"] {
                #expect(try bench.attribute(events, "in_accel_\(axis)_mag_rising_en") == "0")
            }
            try arming.disarm() // a second time does nothing
            #expect(try bench.attribute(events, "in_accel_mag_rising_value") == "127")
        }

        @Test("without an event scale the channel scale converts: 0.05 G on kxcjk-1013 is 51 units on every axis",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func channelScale() throws {
            let bench = try Bench()
            let device = try bench.device("iio:device1")
            let arming = try MotionEventArming(device: device, offers: MotionWakeup.choose(from: try MotionWakeup.offers(of: device)), threshold: 0.05)
            let events = Self.kxcjk1013 + "/events"
            for axis in ["x", "y", "z"] {
                // 0.05 × 9.80665 ÷ 0.009582 = 51.17; no duration asked: the period stays.
                #expect(try bench.attribute(events, "in_accel_\(axis)_thresh_either_value") == "51")
                #expect(try bench.attribute(events, "in_accel_\(axis)_thresh_either_period") == "1")
                #expect(try bench.attribute(events, "in_accel_\(axis)_thresh_either_en") == "1")
            }
            try arming.disarm()
            for axis in ["x", "y", "z"] {
                #expect(try bench.attribute(events, "in_accel_\(axis)_thresh_either_value") == "1")
                #expect(try bench.attribute(events, "in_accel_\(axis)_thresh_either_en") == "0")
            }
        }

        @Test("no event descriptor (umockdev refuses the ioctl): a clean error naming the device, and nothing armed",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func refusedIoctl() throws {
            let bench = try Bench()
            let device = try bench.device("iio:device0")
            #expect {
                _ = try MotionWakeup(device: device, threshold: 0.1)
            } throws: { error in
                guard case .eventDescriptor(let name, let cause) = error as? MotionWakeupError else { return false }
                return name == "iio:device0 (mma8452)" && cause.operation.contains("/dev/iio:device0")
                    && "\(error)".hasPrefix("iio:device0 (mma8452) gives no event descriptor: ")
            }
            let events = Self.mma8452 + "/events"
            #expect(try bench.attribute(events, "in_accel_mag_rising_value") == "127")
            #expect(try bench.attribute(events, "in_accel_x_mag_rising_en") == "0")
        }

        @Test("a device without events/ fails cleanly, naming the device and what is missing",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func noEvents() throws {
            let bench = try Bench("mpu6050.umockdev")
            let device = try bench.device("iio:device0")
            #expect(throws: MotionWakeupError.noMotionEvents(device: "iio:device0 (mpu6050)", found: [])) {
                _ = try MotionWakeup(device: device, threshold: 0.1)
            }
            #expect("\(MotionWakeupError.noMotionEvents(device: "iio:device0 (mpu6050)", found: []))"
                == "iio:device0 (mpu6050) has no events/ directory: the driver offers no motion events")
        }
    }
}
