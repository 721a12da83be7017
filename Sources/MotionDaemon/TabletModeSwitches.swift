import FoundationEssentials
import MotionCore

/// The tablet-mode switches a machine already has: input devices whose switch capabilities
/// (`/sys/class/input/input*/capabilities/sw`, a bitmap in hexadecimal words, most significant
/// first) include `SW_TABLET_MODE` (bit 1) — `intel-vbtn`, `intel-hid`, `asus-wmi`,
/// `thinkpad_acpi`, a convertible's embedded controller. motiond's own switch is not one of them.
enum TabletModeSwitches {
    /// `SW_TABLET_MODE` in `<linux/input-event-codes.h>`.
    static let tabletModeBit = 1

    /// The names of the machine's own tablet-mode switches under `root` (normally
    /// `/sys/class/input`); devices that cannot be read are left out.
    static func native(root: String = "/sys/class/input") -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return entries.filter { $0.hasPrefix("input") }.sorted().compactMap { entry in
            let directory = root + "/" + entry
            guard let bitmap = read(directory + "/capabilities/sw"), hasTabletMode(bitmap) else { return nil }
            let name = read(directory + "/name") ?? entry
            return name == TabletModeSwitch.name ? nil : name
        }
    }

    /// Whether a `capabilities/sw` bitmap has `SW_TABLET_MODE`: its last word's bit 1.
    static func hasTabletMode(_ bitmap: String) -> Bool {
        guard let last = bitmap.split(whereSeparator: \.isWhitespace).last, let word = UInt64(last, radix: 16) else { return false }
        return word & (1 << UInt64(tabletModeBit)) != 0
    }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingWhitespace()
    }
}
