import Foundation
import Glibc
import Testing
@testable import MotionIIO

/// The hrtimer software trigger's configfs and sysfs side, on directories that stand in for
/// them: why none can be made (each missing piece named), a trigger made, found among the
/// trigger devices, set and removed, and a failed one taken back. The kernel's side (a trigger
/// device appearing at `mkdir`, a real driver sampled) is check-system's (`board-software-trigger`).
@Suite("SoftwareTrigger")
struct SoftwareTriggerTests {
    /// A temporary tree with `config/iio/triggers/hrtimer` (as deep as asked) and `devices`.
    struct Tree {
        let root: URL
        var roots: SoftwareTrigger.Roots {
            SoftwareTrigger.Roots(configfs: root.appendingPathComponent("config/iio/triggers/hrtimer").path,
                                  devices: root.appendingPathComponent("devices").path)
        }

        init(depth: Int) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("software-trigger-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("devices"), withIntermediateDirectories: true)
            let levels = ["config", "iio", "triggers", "hrtimer"].prefix(depth)
            if !levels.isEmpty {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(levels.joined(separator: "/")), withIntermediateDirectories: true)
            }
        }

        /// A device directory with files, e.g. `trigger3` named a trigger's name.
        func device(_ name: String, _ files: [String: String]) throws {
            let directory = root.appendingPathComponent("devices/\(name)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (file, text) in files {
                let url = directory.appendingPathComponent(file)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: false, encoding: .utf8)
            }
        }

        func text(_ path: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        }

        func exists(_ path: String) -> Bool {
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test("what is missing is named: configfs, its iio directory, the sw-trigger module, the hrtimer module")
    func unavailable() throws {
        let expected = [
            0: "the kernel has no configfs (CONFIG_CONFIGFS_FS)",
            1: "configfs is not mounted there, or industrialio-configfs is not loaded (CONFIG_IIO_CONFIGFS)",
            2: "industrialio-sw-trigger is not loaded (CONFIG_IIO_SW_TRIGGER)",
            3: "iio-trig-hrtimer is not loaded (kernel option CONFIG_IIO_HRTIMER_TRIGGER)",
        ]
        for (depth, reason) in expected {
            let tree = try Tree(depth: depth)
            defer { tree.remove() }
            let said = SoftwareTrigger.unavailable(tree.roots)
            #expect(said?.hasSuffix(reason) == true, "depth \(depth): \(said ?? "nil")")
        }
        let tree = try Tree(depth: 4)
        defer { tree.remove() }
        #expect(SoftwareTrigger.unavailable(tree.roots) == nil)
    }

    @Test("made in configfs, found among the trigger devices by name, set to the period in mHz, detached and removed")
    func lifecycle() throws {
        let tree = try Tree(depth: 4)
        defer { tree.remove() }
        // What the kernel does at mkdir, done ahead: the trigger device with the directory's name.
        try tree.device("trigger0", ["name": "accel_3d-dev0\n", "sampling_frequency": "0\n"])
        try tree.device("trigger1", ["name": "motiond-iio:device2\n", "sampling_frequency": "100.000000\n"])
        try tree.device("iio:device2", ["trigger/current_trigger": "motiond-iio:device2\n"])
        let trigger = try SoftwareTrigger.make(for: "iio:device2", roots: tree.roots, accessWait: 0)
        #expect(trigger.name == "motiond-iio:device2")
        #expect(trigger.device == tree.roots.devices + "/trigger1")
        #expect(tree.exists("config/iio/triggers/hrtimer/motiond-iio:device2"))
        try trigger.setPeriod(0.03)
        #expect(try tree.text("devices/trigger1/sampling_frequency") == "33.333\n")
        try trigger.setPeriod(0.01)
        #expect(try tree.text("devices/trigger1/sampling_frequency") == "100\n")
        try trigger.remove(from: "iio:device2", roots: tree.roots)
        #expect(try tree.text("devices/iio:device2/trigger/current_trigger") == "\n", "detached before it goes")
        #expect(!tree.exists("config/iio/triggers/hrtimer/motiond-iio:device2"))
    }

    @Test("one a killed motiond left is taken up; another device's trigger is left attached")
    func reused() throws {
        let tree = try Tree(depth: 4)
        defer { tree.remove() }
        try FileManager.default.createDirectory(atPath: tree.roots.configfs + "/motiond-iio:device1", withIntermediateDirectories: false)
        try tree.device("trigger4", ["name": "motiond-iio:device1\n", "sampling_frequency": "50.000000\n"])
        try tree.device("iio:device1", ["trigger/current_trigger": "bmi160-dev1\n"])
        let trigger = try SoftwareTrigger.make(for: "iio:device1", roots: tree.roots, accessWait: 0)
        #expect(trigger.device == tree.roots.devices + "/trigger4")
        try trigger.remove(from: "iio:device1", roots: tree.roots)
        #expect(try tree.text("devices/iio:device1/trigger/current_trigger") == "bmi160-dev1\n")
        #expect(!tree.exists("config/iio/triggers/hrtimer/motiond-iio:device1"))
    }

    @Test("no trigger device appears: the error says where it looked, and the directory it made is gone")
    func noDevice() throws {
        let tree = try Tree(depth: 4)
        defer { tree.remove() }
        #expect {
            try SoftwareTrigger.make(for: "iio:device0", roots: tree.roots, accessWait: 0)
        } throws: { error in
            let error = error as? IIOError
            return error?.code == ENODEV && error?.description.contains("motiond-iio:device0") == true
        }
        #expect(!tree.exists("config/iio/triggers/hrtimer/motiond-iio:device0"))
    }
}
