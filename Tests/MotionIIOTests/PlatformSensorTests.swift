import MotionCore
@testable import MotionIIO
import Testing

/// The pure parts of the input and hwmon sensors: evdev ioctl numbers and event records, the
/// capability bitmaps of sysfs, applesmc's light text. Expected values worked out by hand from
/// <linux/input.h> and the kernel's sysfs formats.
@Suite("Input and hwmon sensor parsing")
struct PlatformSensorTests {
    @Test("EVIOCGABS(axis) and EVIOCGSW(len) are _IOR('E', …) with the kernel's numbers")
    func ioctlNumbers() {
        // EVIOCGABS(ABS_Y) = _IOR('E', 0x41, struct input_absinfo): 2 << 30 | 24 << 16 | 0x45 << 8 | 0x41.
        #expect(EvdevDevice.getAbsolute(1) == 0x8018_4541)
        // EVIOCGSW(4) = _IOC(_IOC_READ, 'E', 0x1b, 4).
        #expect(EvdevDevice.getSwitches(length: 4) == 0x8004_451b)
    }

    @Test("an input_event record: type, code and value after the time (two longs)")
    func eventRecord() {
        // EV_SW (5), SW_FRONT_PROXIMITY (11), value 1, after 16 bytes of time on a 64-bit ABI.
        var bytes = [UInt8](repeating: 0xEE, count: 2 * MemoryLayout<Int>.size)
        bytes += [5, 0, 11, 0, 1, 0, 0, 0]
        #expect(bytes.count == EvdevDevice.eventSize)
        #expect(EvdevDevice.decode(bytes[...]) == EvdevDevice.Event(type: 5, code: 11, value: 1))
        // A negative value (an axis below zero): −256 is 0xFFFFFF00.
        let negative = [UInt8](repeating: 0, count: 2 * MemoryLayout<Int>.size) + [3, 0, 1, 0, 0x00, 0xFF, 0xFF, 0xFF]
        #expect(EvdevDevice.decode(([0, 0] + negative)[2...]) == EvdevDevice.Event(type: 3, code: 1, value: -256))
    }

    @Test("capabilities/sw: hexadecimal words, most significant first; bit 11 is SW_FRONT_PROXIMITY")
    func capabilityBits() {
        // 0x801: bits 0 (SW_LID) and 11.
        #expect(PlatformDiscovery.hasBit(11, inCapabilities: "801\n"))
        #expect(PlatformDiscovery.hasBit(0, inCapabilities: "801"))
        #expect(!PlatformDiscovery.hasBit(1, inCapabilities: "801"))
        // 0x10e00: bits 9, 10, 11 and 16.
        #expect(PlatformDiscovery.hasBit(11, inCapabilities: "10e00"))
        // 0x200: bit 9 only (a camera lens cover); none at all.
        #expect(!PlatformDiscovery.hasBit(11, inCapabilities: "200"))
        #expect(!PlatformDiscovery.hasBit(11, inCapabilities: "0"))
        #expect(!PlatformDiscovery.hasBit(11, inCapabilities: ""))
        // Two words: the last one holds bits 0–63.
        #expect(PlatformDiscovery.hasBit(11, inCapabilities: "1 800"))
        #expect(!PlatformDiscovery.hasBit(11, inCapabilities: "800 0"))
        #expect(!PlatformDiscovery.hasBit(11, inCapabilities: "garbage"))
    }

    @Test("applesmc light: the brighter of (left,right) as a percentage of 255; anything else is no reading")
    func hwmonLight() {
        // 128 / 255 × 100 = 50.196…; 255 is the whole range.
        #expect(PlatformSensor.hwmonLightLevel("(128,128)\n").map { ($0 * 1000).rounded() } == 50196)
        #expect(PlatformSensor.hwmonLightLevel("(255,255)") == 100)
        #expect(PlatformSensor.hwmonLightLevel("(10,51)") == 20)
        #expect(PlatformSensor.hwmonLightLevel("(0,0)") == 0)
        for text in ["", "garbage", "(128)", "(128,128", "128,128", "(a,b)", "(1,2,3)"] {
            #expect(PlatformSensor.hwmonLightLevel(text) == nil, "\(text)")
        }
    }
}
