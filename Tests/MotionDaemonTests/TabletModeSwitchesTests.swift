import FoundationEssentials
import Testing
@testable import MotionDaemon

/// Finding the tablet-mode switches a machine has, in a sysfs-like tree of input devices.
@Suite("TabletModeSwitches")
struct TabletModeSwitchesTests {
    @Test("a capabilities/sw bitmap has SW_TABLET_MODE when its last word's bit 1 is set",
          arguments: [("2", true), ("3", true), ("1", false), ("0", false), ("10 2", true), ("2 0", false), ("", false), ("zz", false)])
    func bitmap(text: String, expected: Bool) {
        #expect(TabletModeSwitches.hasTabletMode(text) == expected)
    }

    @Test("the machine's own switches: named, motiond's own and lid-only switches left out, unreadable devices skipped")
    func native() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UInt64.random(in: 0 ... .max))")
        defer { try? FileManager.default.removeItem(at: root) }
        func device(_ entry: String, name: String?, sw: String?) throws {
            let directory = root.appendingPathComponent(entry).appendingPathComponent("capabilities")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if let sw { try Data("\(sw)\n".utf8).write(to: directory.appendingPathComponent("sw")) }
            if let name { try Data("\(name)\n".utf8).write(to: root.appendingPathComponent(entry).appendingPathComponent("name")) }
        }
        try device("input3", name: "Intel Virtual Buttons", sw: "2")
        try device("input4", name: "Lid Switch", sw: "1")
        try device("input5", name: TabletModeSwitch.name, sw: "2")
        try device("input6", name: "AT Translated Set 2 keyboard", sw: nil)
        try device("input7", name: nil, sw: "3")
        try device("mouse0", name: "not an input device", sw: "2")
        #expect(TabletModeSwitches.native(root: root.path) == ["Intel Virtual Buttons", "input7"])
        #expect(TabletModeSwitches.native(root: root.appendingPathComponent("nonexistent").path) == [])
    }
}
