import Foundation
import Glibc
import MotionCore
import MotionIIO
@testable import TestSupport
import Testing

/// udev/70-motiond.rules and udev/61-motiond-mount-matrix.hwdb.example, run by the real
/// `udevadm test` (with this machine's other rules) against the umockdev fixtures, as root in a
/// private mount namespace with its own /dev, /run, /etc/udev, /etc/group and /etc/passwd
/// (Tests/Tools/udev-namespace.sh; platform-testing.md 10.2), so the host is never touched.
/// `udevadm test` always exits 0 and never runs RUN: the tests read its output, then run the
/// RUN command it printed themselves under umockdev, and run motiond as the unprivileged user
/// motiond against the result.
@Suite("udev rules and hwdb example")
struct UdevRulesTests {
    // MARK: - Harness

    static let namespaceScript = Emulation.packageRoot.appendingPathComponent("Tests/Tools/udev-namespace.sh").path
    static let rules = Emulation.packageRoot.appendingPathComponent("udev/70-motiond.rules").path
    static let hwdbExample = Emulation.packageRoot.appendingPathComponent("udev/61-motiond-mount-matrix.hwdb.example").path
    static let rulesName = "70-motiond.rules"

    /// The sysfs attributes motiond writes (directly, or through libiio's buffer open and
    /// close), in the rules' order: what the RUN command makes group-writable, where present.
    static let writtenAttributes = [
        "sampling_frequency", "in_accel_sampling_frequency", "in_anglvel_sampling_frequency", "in_magn_sampling_frequency",
        "in_illuminance_sampling_frequency", "in_intensity_sampling_frequency", "in_proximity_sampling_frequency",
        "current_timestamp_clock", "trigger/current_trigger", "buffer/enable", "buffer/length", "buffer/watermark",
        "buffer/hwfifo_timeout", "scan_elements/*_en", "buffer0/enable", "buffer0/length", "buffer0/watermark", "buffer0/*_en",
        "events/*_en", "events/*_value", "events/*_period", "events/*_timeout",
    ]

    static func onPath(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// Root, and the tools the namespace recipe needs.
    static let canRunUdevTest = geteuid() == 0 && ["unshare", "umockdev-run", "udevadm", "systemd-hwdb"].allSatisfy(onPath)
    static let needsUdevTest: Comment =
        "needs root, unshare, umockdev-run, udevadm and systemd-hwdb (Debian: util-linux, umockdev, udev): udevadm test runs in a private mount namespace with its own /dev and /run"
    /// Also setpriv and iio_readdev, to read as the unprivileged user motiond.
    static let canRunAsMotiond = canRunUdevTest && ["setpriv", "iio_readdev"].allSatisfy(onPath)
    static let needsRunAsMotiond: Comment =
        "needs what udevadm test needs, plus setpriv (util-linux) and iio_readdev (libiio-utils) to read as the user motiond"

    /// `udevadm test`'s report for one device.
    struct UdevReport {
        let syspath: String
        let lines: [String]

        /// The device's properties as the report lists them (KEY=value after `DEVPATH=`).
        var properties: [String: String] {
            guard let start = lines.firstIndex(where: { $0.hasPrefix("DEVPATH=") }) else { return [:] }
            var result: [String: String] = [:]
            for line in lines[start...] {
                guard let equals = line.firstIndex(of: "="), line[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { continue }
                result[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return result
        }

        /// The commands udev would run (`run: '…'`), substituted.
        var runs: [String] {
            lines.compactMap { line in
                guard line.hasPrefix("run: '"), line.hasSuffix("'") else { return nil }
                return String(line.dropFirst("run: '".count).dropLast())
            }
        }

        /// What a rules file applied to the device: `GROUP 64000`, `MODE 0660`, `RUN '…'`.
        func applied(by file: String) -> [String] {
            lines.compactMap { line in
                guard let range = line.range(of: "/run/udev/rules.d/\(file):") else { return nil }
                guard line[..<range.lowerBound].hasSuffix(": ") else { return nil }  // "iio:device0: <file>:<line> ACTION"
                let rest = line[range.upperBound...].drop(while: \.isNumber)
                return rest.trimmingCharacters(in: .whitespaces)
            }
        }

        /// Parse and runtime diagnostics naming the rules file: udev prints parse problems as
        /// `<file>:<line> <message>`.
        func diagnostics(for file: String) -> [String] {
            let words = ["invalid", "unknown", "error", "ignoring", "failed", "warning"]
            return lines.filter { line in
                guard line.contains(file) else { return false }
                if line.hasPrefix("/run/udev/rules.d/\(file):") { return true }
                let lower = line.lowercased()
                return words.contains { lower.contains($0) }
            }
        }

        var motiondRun: String? { runs.first { $0.contains("chgrp motiond") } }
    }

    /// What one namespace run gave: a report per device, the gid motiond got, all output.
    struct NamespaceRun {
        let reports: [String: UdevReport]
        let motiondGID: String
        let output: ProcessOutput

        subscript(_ syspath: String) -> UdevReport { reports[syspath] ?? UdevReport(syspath: syspath, lines: []) }
    }

    /// `udevadm test --action=add` for each syspath, under `umockdev-run -d fixture`, in one
    /// private namespace with `rules` installed and `hwdb` compiled.
    static func udevTest(fixturePath: String, _ syspaths: [String], rules: [String] = [UdevRulesTests.rules], hwdb: [String] = []) async throws -> NamespaceRun {
        let loop = """
        echo "motiond-gid=$MOTIOND_GID"
        for p in "$@"; do echo "@@@ $p"; udevadm test --action=add "$p" 2>&1; done
        """
        var command = ["sh", namespaceScript]
        for file in rules { command += ["--rules", file] }
        for file in hwdb { command += ["--hwdb", file] }
        command += ["--", "umockdev-run", "-d", fixturePath, "--", "sh", "-c", loop, "sh"] + syspaths
        let output = try await Emulation.run(command, timeout: 60)
        guard output.status == 0 else { throw TestFailure("udev namespace run failed (\(output.status)): \(output.stdout)\n\(output.stderr)") }
        var reports: [String: UdevReport] = [:]
        var gid = ""
        for chunk in output.stdout.components(separatedBy: "@@@ ") {
            let lines = chunk.components(separatedBy: "\n")
            if let line = lines.first(where: { $0.hasPrefix("motiond-gid=") }) { gid = String(line.dropFirst("motiond-gid=".count)) }
            guard let syspath = lines.first, syspath.hasPrefix("/sys/") else { continue }
            reports[syspath] = UdevReport(syspath: syspath, lines: Array(lines.dropFirst()))
        }
        guard !gid.isEmpty, reports.count == syspaths.count else {
            throw TestFailure("unexpected udev namespace output: \(output.stdout)\n\(output.stderr)")
        }
        return NamespaceRun(reports: reports, motiondGID: gid, output: output)
    }

    static func syspath(_ device: String) -> String { "/sys/bus/iio/devices/\(device)" }

    /// The `A:` attribute names of one device of a `.umockdev` description.
    static func attributes(of device: String, inFixtureText text: String) -> [String] {
        var names: [String] = [], inside = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("P: ") { inside = line.hasSuffix("/\(device)") }
            guard inside, line.hasPrefix("A: "), let equals = line.firstIndex(of: "=") else { continue }
            names.append(String(line[line.index(line.startIndex, offsetBy: 3)..<equals]))
        }
        return names
    }

    /// The attributes of a device the RUN command must change: those matching the list.
    static func expectedWritable(_ attributes: [String]) -> Set<String> {
        Set(attributes.filter { name in writtenAttributes.contains { fnmatch($0, name, FNM_PATHNAME) == 0 } })
    }

    /// Checks that a device motiond reads got everything: sensor list, systemd tag and wants, node
    /// group and mode, and the RUN command for this device's directory.
    static func expectServed(_ report: UdevReport, sensors: String, gid: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let properties = report.properties
        #expect(properties["MOTIOND_SENSOR"] == sensors, "\(report.syspath)", sourceLocation: sourceLocation)
        #expect(properties["SYSTEMD_WANTS"]?.split(separator: " ").contains("motiond.service") == true, "\(report.syspath)", sourceLocation: sourceLocation)
        #expect(properties["TAGS"]?.contains(":systemd:") == true, "\(report.syspath)", sourceLocation: sourceLocation)
        let applied = report.applied(by: rulesName)
        #expect(applied.contains("GROUP \(gid)"), "\(report.syspath): \(applied)", sourceLocation: sourceLocation)
        #expect(applied.contains("MODE 0660"), "\(report.syspath): \(applied)", sourceLocation: sourceLocation)
        #expect(applied.contains { $0.hasPrefix("RUN '/bin/sh -c '") }, "\(report.syspath): \(applied)", sourceLocation: sourceLocation)
        // The command udev would run: %S%p and $$ substituted, every written attribute listed.
        guard let devpath = properties["DEVPATH"], let run = report.motiondRun else {
            Issue.record("\(report.syspath): no DEVPATH or no motiond RUN in \(report.lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
            return
        }
        #expect(report.runs.filter { $0.contains("chgrp motiond") }.count == 1, sourceLocation: sourceLocation)
        #expect(run.hasPrefix("/bin/sh -c 'set -e; cd /sys\(devpath); for f in \(writtenAttributes.joined(separator: " ")); do "),
                "\(run)", sourceLocation: sourceLocation)
        #expect(run.hasSuffix("do [ -e $f ] || continue; chgrp motiond $f; chmod g+w $f; done'"), "\(run)", sourceLocation: sourceLocation)
        #expect(report.diagnostics(for: rulesName).isEmpty, "\(report.diagnostics(for: rulesName))", sourceLocation: sourceLocation)
    }

    /// Checks that the rules left a device alone.
    static func expectUntouched(_ report: UdevReport, sourceLocation: SourceLocation = #_sourceLocation) {
        let properties = report.properties
        #expect(properties["DEVPATH"] != nil, "\(report.syspath): no report", sourceLocation: sourceLocation)
        #expect(properties["MOTIOND_SENSOR"] == nil, "\(report.syspath)", sourceLocation: sourceLocation)
        #expect(properties["SYSTEMD_WANTS"]?.contains("motiond.service") != true, "\(report.syspath)", sourceLocation: sourceLocation)
        // Another package's rules may tag it for their own service (iio-sensor-proxy's do, for a
        // light sensor); never for motiond's.
        #expect(properties["TAGS"]?.contains(":systemd:") != true || properties["SYSTEMD_WANTS"].map { !$0.isEmpty && !$0.contains("motiond.service") } == true,
                "\(report.syspath): tagged for systemd without another package's service", sourceLocation: sourceLocation)
        #expect(report.applied(by: rulesName).isEmpty, "\(report.syspath): \(report.applied(by: rulesName))", sourceLocation: sourceLocation)
        #expect(report.motiondRun == nil, "\(report.syspath)", sourceLocation: sourceLocation)
        #expect(!report.lines.contains { $0.contains("GROUP") && $0.contains(rulesName) }, sourceLocation: sourceLocation)
    }

    // MARK: - Rules: parsing and what they apply

    @Test("the rules load without a diagnostic; a broken copy is caught by the same check", .enabled(if: canRunUdevTest, needsUdevTest))
    func rulesParseCleanly() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = Self.syspath("iio:device0")
        let run = try await Self.udevTest(fixturePath: Emulation.fixture("mpu6050.umockdev"), [device])
        let report = run[device]
        #expect(report.lines.contains("Reading rules file: /run/udev/rules.d/\(Self.rulesName)"))
        #expect(report.diagnostics(for: Self.rulesName).isEmpty, "\(report.diagnostics(for: Self.rulesName))")
        // Nothing at all about our group or user (an unknown group is only a warning).
        #expect(!report.lines.contains { $0.contains("Unknown group") || $0.contains("Unknown user") })
        #expect(!report.lines.contains { $0.contains("Invalid") })

        // Control: the same check flags a copy with an assignment to a match-only key.
        let text = try String(contentsOfFile: Self.rules, encoding: .utf8)
        let brokenText = text.replacingOccurrences(of: "KERNEL!=\"iio:device*\"", with: "KERNEL=\"iio:device*\"")
        #expect(brokenText != text)
        let broken = dir.appendingPathComponent(Self.rulesName)
        try brokenText.write(to: broken, atomically: true, encoding: .utf8)
        let brokenRun = try await Self.udevTest(fixturePath: Emulation.fixture("mpu6050.umockdev"), [device], rules: [broken.path])
        #expect(brokenRun[device].diagnostics(for: Self.rulesName).contains { $0.contains("Invalid operator for KERNEL") })
    }

    struct FixtureCase: Sendable, CustomTestStringConvertible {
        var fixture: String
        /// Device → MOTIOND_SENSOR, `nil` for devices the rules must leave alone.
        var devices: [(String, String?)]
        var testDescription: String { fixture }
    }

    static let fixtureCases: [FixtureCase] = [
        FixtureCase(fixture: "mpu6050.umockdev", devices: [("iio:device0", "accelerometer gyroscope"), ("trigger0", nil)]),
        FixtureCase(fixture: "lsm6dsx.umockdev", devices: [("iio:device0", "accelerometer"), ("iio:device1", "gyroscope")]),
        FixtureCase(fixture: "ak8975.umockdev", devices: [("iio:device0", "magnetometer")]),
        FixtureCase(fixture: "hid-laptop.umockdev", devices: [
            ("iio:device0", "accelerometer"), ("iio:device1", "gyroscope"), ("iio:device2", "magnetometer"),
            ("trigger0", nil), ("trigger1", nil), ("trigger2", nil),
        ]),
        FixtureCase(fixture: "convertible.umockdev", devices: (0..<5).map { ("iio:device\($0)", "accelerometer") }),
        // A HID light sensor (buffer), a processed-only one, a light + proximity chip, and
        // proximity sensors with and without a near level (discovery decides; udev lists).
        FixtureCase(fixture: "light-proximity.umockdev", devices: [
            ("iio:device0", "light"), ("iio:device1", "light"), ("iio:device2", "light proximity"),
            ("iio:device3", "proximity"), ("iio:device4", "proximity"), ("trigger0", nil),
        ]),
        FixtureCase(fixture: "desk.umockdev", devices: [("iio:device0", "accelerometer"), ("iio:device1", "light"), ("iio:device2", "proximity")]),
    ]

    @Test("motion, light and proximity devices: sensors listed, systemd wants motiond, node group motiond 0660, RUN for their attributes; triggers untouched",
          .enabled(if: canRunUdevTest, needsUdevTest), arguments: fixtureCases)
    func motionDevices(_ fixtureCase: FixtureCase) async throws {
        let run = try await Self.udevTest(fixturePath: Emulation.fixture(fixtureCase.fixture), fixtureCase.devices.map { Self.syspath($0.0) })
        for (device, sensors) in fixtureCase.devices {
            let report = run[Self.syspath(device)]
            if let sensors {
                Self.expectServed(report, sensors: sensors, gid: run.motiondGID)
            } else {
                Self.expectUntouched(report)
            }
        }
    }

    /// A light sensor, and devices motiond does not use, some with buffers, triggers and
    /// sampling frequencies of their own, appended to the mpu6050 tree.
    static let mixedDevices = #"""

    P: /devices/pci0000:00/0000:00:13.0/001F:8087:0AC2.0001/HID-SENSOR-200041.3.auto/iio:device1
    N: iio:device1
    E: DEVNAME=/dev/iio:device1
    E: SUBSYSTEM=iio
    E: MAJOR=237
    E: MINOR=1
    A: dev=237:1\n
    A: name=als\n
    A: in_illuminance_raw=120\n
    A: in_illuminance_scale=0.1\n
    A: in_illuminance_sampling_frequency=10.000000\n
    A: in_intensity_both_raw=120\n
    A: buffer/enable=0\n
    A: buffer/length=0\n
    A: scan_elements/in_intensity_both_en=0\n
    A: scan_elements/in_intensity_both_index=0\n
    A: scan_elements/in_intensity_both_type=le:s32/32>>0\n
    A: trigger/current_trigger=als-dev1\n

    P: /devices/pci0000:00/0000:00:13.0/001F:8087:0AC2.0001/HID-SENSOR-INT-020b.4.auto/iio:device2
    N: iio:device2
    E: DEVNAME=/dev/iio:device2
    E: SUBSYSTEM=iio
    E: MAJOR=237
    E: MINOR=2
    A: dev=237:2\n
    A: name=hinge\n
    A: in_angl0_raw=180\n
    A: in_angl1_raw=90\n
    A: in_angl2_raw=90\n
    A: in_angl_scale=1\n

    P: /devices/platform/soc/i2c-1/1-0077/iio:device3
    N: iio:device3
    E: DEVNAME=/dev/iio:device3
    E: SUBSYSTEM=iio
    E: MAJOR=237
    E: MINOR=3
    A: dev=237:3\n
    A: name=bmp280\n
    A: in_pressure_input=101.325\n
    A: in_temp_input=21500\n
    A: sampling_frequency=25\n

    """#

    @Test("IIO devices motiond does not read (hinge angle, pressure) get nothing, next to an mpu6050 and a light sensor that do",
          .enabled(if: canRunUdevTest, needsUdevTest))
    func otherDevicesUntouched() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = dir.appendingPathComponent("mixed.umockdev")
        try (Emulation.fixtureText("mpu6050.umockdev") + Self.mixedDevices).write(to: fixture, atomically: true, encoding: .utf8)
        let devices = ["iio:device0", "iio:device1", "iio:device2", "iio:device3", "trigger0"]
        let run = try await Self.udevTest(fixturePath: fixture.path, devices.map(Self.syspath))
        Self.expectServed(run[Self.syspath("iio:device0")], sensors: "accelerometer gyroscope", gid: run.motiondGID)
        Self.expectServed(run[Self.syspath("iio:device1")], sensors: "light", gid: run.motiondGID)
        for device in devices.dropFirst(2) {
            Self.expectUntouched(run[Self.syspath(device)])
        }
    }

    /// The mpu6050's I2C client as a device of its own (so SUBSYSTEMS=="i2c" matches), and a
    /// software trigger motiond made for it, beside the chip's own trigger0.
    static let boardDevices = #"""

    P: /devices/platform/soc/i2c-1/1-0068
    E: SUBSYSTEM=i2c
    A: name=mpu6050\n

    P: /devices/iio_sysfs_trigger/trigger1
    E: SUBSYSTEM=iio
    A: name=motiond-iio:device0\n
    A: sampling_frequency=100.000000\n

    """#

    @Test("a chip on I2C with a buffer and a trigger slot loads iio-trig-hrtimer; the software trigger motiond made lets group motiond set its frequency, the chip's own trigger stays untouched",
          .enabled(if: canRunUdevTest, needsUdevTest))
    func softwareTrigger() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = dir.appendingPathComponent("board.umockdev")
        try (Emulation.fixtureText("mpu6050.umockdev") + Self.boardDevices).write(to: fixture, atomically: true, encoding: .utf8)
        let run = try await Self.udevTest(fixturePath: fixture.path, ["iio:device0", "trigger0", "trigger1"].map(Self.syspath))
        let chip = run[Self.syspath("iio:device0")]
        Self.expectServed(chip, sensors: "accelerometer gyroscope", gid: run.motiondGID)
        #expect(chip.runs.contains("kmod load iio-trig-hrtimer"), "\(chip.runs)")
        Self.expectUntouched(run[Self.syspath("trigger0")])
        let made = run[Self.syspath("trigger1")]
        #expect(made.runs == ["/bin/sh -c 'chgrp motiond /sys/devices/iio_sysfs_trigger/trigger1/sampling_frequency; chmod g+w /sys/devices/iio_sysfs_trigger/trigger1/sampling_frequency'"],
                "\(made.lines.joined(separator: "\n"))")
        #expect(made.diagnostics(for: Self.rulesName).isEmpty)
        // Without the I2C parent (a platform device's chip, a HID hub's) nothing is loaded.
        let alone = try await Self.udevTest(fixturePath: Emulation.fixture("mpu6050.umockdev"), [Self.syspath("iio:device0")])
        #expect(!alone[Self.syspath("iio:device0")].runs.contains { $0.contains("kmod") })
    }

    // MARK: - Running the RUN command

    /// A shell for `umockdev-run`: for each syspath, takes the RUN command `udevadm test` printed
    /// for motiond and runs it (`narrow`: with the scan elements limited to the axes and the
    /// timestamp; `none`: not at all), then lists every file of the device with group and mode.
    static let applyRun = #"""
    mode=$1; shift
    for p in "$@"; do
        cmd=$(udevadm test --action=add "$p" 2>&1 | sed -n "s/^run: '\(.*\)'\$/\1/p" | grep 'chgrp motiond')
        [ -n "$cmd" ] || { echo "no motiond RUN for $p"; exit 1; }
        case $mode in
            full) sh -c "$cmd" || { echo "RUN failed for $p"; exit 1; } ;;
            narrow) sh -c "$(echo "$cmd" | sed 's|scan_elements/\*_en|scan_elements/in_accel_*_en scan_elements/in_anglvel_*_en scan_elements/in_magn_*_en scan_elements/in_timestamp_en|')" ;;
        esac
        echo "@@@ $p"
        (cd "$p" && find . -type f | sort | xargs stat -c '%n %G %a')
    done
    """#

    struct RunCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The fixture text (a file of Tests/Fixtures, possibly extended).
        var fixture: @Sendable () throws -> String
        /// Device → how many of its attributes the RUN command must change.
        var writable: [String: Int]
        var testDescription: String { name }
    }

    /// lsm6dsx with the kernel 5.11+ per-buffer directory (buffer0/) beside the legacy one.
    static func lsm6dsxWithBuffer0() throws -> String {
        func buffer0(_ type: String) -> String {
            var lines = ["A: buffer0/enable=0\\n", "A: buffer0/length=0\\n", "A: buffer0/watermark=1\\n", "A: buffer0/data_available=0\\n"]
            for (index, axis) in ["x", "y", "z"].enumerated() {
                lines += ["A: buffer0/in_\(type)_\(axis)_en=0\\n", "A: buffer0/in_\(type)_\(axis)_index=\(index)\\n", "A: buffer0/in_\(type)_\(axis)_type=le:s16/16>>0\\n"]
            }
            lines += ["A: buffer0/in_timestamp_en=0\\n", "A: buffer0/in_timestamp_index=3\\n", "A: buffer0/in_timestamp_type=le:s64/64>>0\\n"]
            return lines.joined(separator: "\n") + "\n"
        }
        var text = try Emulation.fixtureText("lsm6dsx.umockdev")
        for (name, type) in [("lsm6dsl_accel", "accel"), ("lsm6dsl_gyro", "anglvel")] {
            let line = "A: name=\(name)\\n\n"
            guard text.contains(line) else { throw TestFailure("lsm6dsx.umockdev has no '\(line)'") }
            text = text.replacingOccurrences(of: line, with: line + buffer0(type))
        }
        return text
    }

    static let runCases: [RunCase] = [
        // sampling_frequency, current_timestamp_clock, trigger, buffer enable/length/watermark, 8 scan elements.
        RunCase(name: "mpu6050 (device frequency, trigger, in_temp_en)", fixture: { try Emulation.fixtureText("mpu6050.umockdev") },
                writable: ["iio:device0": 14]),
        // in_<type>_sampling_frequency, clock, trigger, buffer enable/length/watermark, 3 axes + timestamp.
        RunCase(name: "HID hub (per-type frequencies)", fixture: { try Emulation.fixtureText("hid-laptop.umockdev") },
                writable: ["iio:device0": 10, "iio:device1": 10, "iio:device2": 10]),
        // frequency, clock, buffer/ enable/length, buffer0/ enable/length/watermark, 4 scan elements in each.
        RunCase(name: "lsm6dsx with buffer0/", fixture: lsm6dsxWithBuffer0, writable: ["iio:device0": 15, "iio:device1": 15]),
        // mma8452: frequency, clock, trigger, buffer enable/length/watermark, 4 scan elements, and
        // its events: 4 enables, 2 values, 2 periods. kxcjk-1013 (no buffer): frequency, clock,
        // and per axis an event enable, value and period.
        RunCase(name: "mma8452 and kxcjk-1013 (motion events)", fixture: { try Emulation.fixtureText("motion-events.umockdev") },
                writable: ["iio:device0": 18, "iio:device1": 11]),
        // HID light sensor: its two per-type frequencies, clock, trigger, buffer
        // enable/length/watermark, 3 scan elements; the other light and proximity chips have
        // nothing motiond writes.
        RunCase(name: "light and proximity sensors", fixture: { try Emulation.fixtureText("light-proximity.umockdev") },
                writable: ["iio:device0": 10, "iio:device1": 0, "iio:device2": 0, "iio:device3": 0, "iio:device4": 0]),
        // Nothing motiond writes exists: nothing changes.
        RunCase(name: "ak8975 (polled: no buffer)", fixture: { try Emulation.fixtureText("ak8975.umockdev") }, writable: ["iio:device0": 0]),
    ]

    @Test("the RUN command gives group motiond write access to exactly the attributes motiond writes, and nothing else",
          .enabled(if: canRunUdevTest, needsUdevTest), arguments: runCases)
    func runCommandChangesExactlyTheWrittenAttributes(_ runCase: RunCase) async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try runCase.fixture()
        let fixture = dir.appendingPathComponent("fixture.umockdev")
        try text.write(to: fixture, atomically: true, encoding: .utf8)
        let syspaths = runCase.writable.keys.sorted().map(Self.syspath)
        let output = try await Emulation.run(
            ["sh", Self.namespaceScript, "--rules", Self.rules, "--", "umockdev-run", "-d", fixture.path, "--",
             "sh", "-c", Self.applyRun, "sh", "full"] + syspaths, timeout: 60)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(!output.stderr.contains("chgrp:") && !output.stderr.contains("chmod:"), "\(output.stderr)")
        let chunks = output.stdout.components(separatedBy: "@@@ ").dropFirst()
        #expect(chunks.count == runCase.writable.count, "\(output.stdout)\n\(output.stderr)")
        for chunk in chunks {
            var lines = chunk.components(separatedBy: "\n").filter { !$0.isEmpty }
            let syspath = lines.removeFirst()
            let device = String(syspath.split(separator: "/").last!)
            let attributes = Self.attributes(of: device, inFixtureText: text)
            let expected = Self.expectedWritable(attributes)
            #expect(expected.count == runCase.writable[device], "\(device): \(expected.sorted())")
            var changed = Set<String>(), untouched = Set<String>()
            for line in lines {
                let fields = line.split(separator: " ")
                guard fields.count == 3 else { Issue.record("unexpected stat line '\(line)'"); continue }
                let name = String(fields[0].dropFirst(2))  // "./buffer/enable"
                switch (fields[1], fields[2]) {
                case ("motiond", "664"): changed.insert(name)
                case ("root", "644"): untouched.insert(name)
                default: Issue.record("\(device): \(name) is \(fields[1]) \(fields[2])")
                }
            }
            #expect(changed == expected, "\(device): changed \(changed.sorted()), expected \(expected.sorted())")
            #expect(untouched == Set(attributes + ["uevent"]).subtracting(expected), "\(device)")
        }
    }

    // MARK: - motiond as the user motiond

    /// Runs, in the namespace under umockdev with the mpu6050 fed by a scan script: the RUN
    /// command (per `mode`), then what udevd does for GROUP/MODE on the node (which udevadm
    /// test only reports), then `reader` as uid/gid motiond, then prints the attributes motiond
    /// writes. umockdev's own files (its root and its ioctl socket) are opened to everyone, as
    /// they stand for the kernel, not for anything udev manages.
    static func readAsMotiond(mode: String, reader: String) async throws -> ProcessOutput {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("feed.script")
        try ScanScript.mpu6050Ramp(count: 40).write(to: script)
        // The motiond user must be able to execute the daemon: a world-readable copy.
        let motiond = dir.appendingPathComponent("motiond")
        try FileManager.default.copyItem(atPath: Emulation.motiond, toPath: motiond.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: motiond.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        let shell = Self.applyRun.replacingOccurrences(of: #"(cd "$p" && find . -type f | sort | xargs stat -c '%n %G %a')"#, with: ":") + """

        chmod 711 "$UMOCKDEV_DIR"; chmod 666 "$UMOCKDEV_DIR"/ioctl/*
        node=$(readlink -f "$UMOCKDEV_DIR/dev/iio:device0")
        chgrp motiond "$node"; chmod 0660 "$node"
        MOTIOND_BIN=\(Emulation.shellQuote(motiond.path))
        setpriv --reuid="$MOTIOND_UID" --regid="$MOTIOND_GID" --clear-groups -- \(reader)
        echo "--- after ---"
        d=/sys/bus/iio/devices/iio:device0
        for f in buffer/enable scan_elements/in_accel_x_en scan_elements/in_temp_en trigger/current_trigger current_timestamp_clock sampling_frequency; do
            echo "$f=$(tr -d '\\000' < $d/$f)"
        done
        """
        return try await Emulation.run(
            ["sh", Self.namespaceScript, "--rules", Self.rules, "--", "umockdev-run", "-d", Emulation.fixture("mpu6050.umockdev"),
             "-s", "/dev/iio:device0=\(script.path)", "--", "sh", "-c", shell, "sh", mode, Self.syspath("iio:device0")], timeout: 60)
    }

    static let motiondReader = #""$MOTIOND_BIN" --print-samples --json --count 40 --interval 0.01 --no-socket"#

    @Test("with the rules applied, motiond running as user motiond reads the buffer, sets clock and frequency, and puts both back",
          .enabled(if: canRunAsMotiond, needsRunAsMotiond))
    func motiondAsMotiondReadsBuffered() async throws {
        let output = try await Self.readAsMotiond(mode: "full", reader: Self.motiondReader)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.availability("accelerometer").first?.mode == "buffered", "\(output.stderr)")
        #expect(output.availability("gyroscope").first?.mode == "buffered", "\(output.stderr)")
        #expect(output.samples("accelerometer").count == 20)
        #expect(output.samples("accelerometer").first?.timestamp == 5, "kernel timestamps: the buffer, not polling")
        #expect(!output.stderr.contains("Permission denied"), "\(output.stderr)")
        let after = output.stdout.components(separatedBy: "--- after ---\n").last ?? ""
        #expect(output.stderr.contains("cannot set current_timestamp_clock") == false && output.stderr.contains("cannot restore") == false,
                "written and put back by the unprivileged daemon: \(output.stderr)")
        #expect(after.contains("current_timestamp_clock=realtime\n"), "put back as it was")
        #expect(output.stderr.contains("set sampling_frequency of iio:device0 (mpu6050) to 100 Hz"), "written by the unprivileged daemon: \(output.stderr)")
        #expect(after.contains("sampling_frequency=50\n"), "and put back on exit")
        #expect(after.contains("buffer/enable=0\n"))
        #expect(after.contains("trigger/current_trigger=\n"), "the trigger it attached is detached again")
    }

    @Test("without the RUN command, motiond as user motiond is refused every write and falls back to polling",
          .enabled(if: canRunAsMotiond, needsRunAsMotiond))
    func motiondAsMotiondWithoutRulesPolls() async throws {
        let output = try await Self.readAsMotiond(mode: "none", reader: Self.motiondReader)
        #expect(output.availability("accelerometer").first?.mode == "polling", "\(output.stderr)")
        #expect(output.stderr.contains("cannot set sampling frequency: write '100' to sampling_frequency of iio:device0 (mpu6050): Permission denied"))
        #expect(output.stderr.contains("cannot set current_timestamp_clock"))
        let after = output.stdout.components(separatedBy: "--- after ---\n").last ?? ""
        #expect(after.contains("current_timestamp_clock=realtime\n"))
        #expect(after.contains("sampling_frequency=50\n"))
    }

    /// libiio's buffer open writes 0 to every scan element it does not enable (the mpu6050's
    /// in_temp_en), so granting only the axes and the timestamp is not enough.
    @Test("libiio needs every scan_elements/*_en: granting only the axes and timestamp fails the buffer open",
          .enabled(if: canRunAsMotiond, needsRunAsMotiond))
    func everyScanElementIsNeeded() async throws {
        let readdev = "iio_readdev -s 4 -b 1 mpu6050 accel_x accel_y accel_z anglvel_x anglvel_y anglvel_z timestamp | od -An -tx1"
        let full = try await Self.readAsMotiond(mode: "full", reader: readdev)
        #expect(!full.stderr.contains("Unable to allocate buffer"), "\(full.stderr)")
        // 4 scans of 24 bytes: the first starts with accel (0, 0, 1000) big-endian.
        #expect(full.stdout.contains(" 00 00 00 00 03 e8 00 00 00 14 ff e2 00 00 00 00"), "\(full.stdout)")
        let narrow = try await Self.readAsMotiond(mode: "narrow", reader: readdev)
        #expect(narrow.stderr.contains("Unable to allocate buffer: Permission denied"), "\(narrow.stderr)")
        #expect(narrow.stdout.contains("scan_elements/in_temp_en=0\n"))
    }

    // MARK: - hwdb example

    /// The example's entries, parsed as motiond parses the properties (no root needed).
    @Test("every ACCEL_MOUNT_MATRIX in the hwdb example is a proper matrix motiond accepts; every ACCEL_LOCATION parses")
    func hwdbExampleValues() throws {
        let text = try String(contentsOfFile: Self.hwdbExample, encoding: .utf8)
        var matrices = 0, locations = 0, matches = 0
        for line in text.components(separatedBy: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            if line.hasPrefix("sensor:") {
                matches += 1
                #expect(line.hasSuffix("*"), "\(line): end the match with * (firmware versions, suffixes)")
                continue
            }
            #expect(line.hasPrefix(" ") && !line.hasPrefix("  "), "'\(line)': property lines start with exactly one space")
            let property = line.dropFirst()
            if property.hasPrefix("ACCEL_MOUNT_MATRIX=") {
                let matrix = try MountMatrix(parsing: String(property.dropFirst("ACCEL_MOUNT_MATRIX=".count)))
                #expect(matrix.isProper, "\(line)")
                matrices += 1
            } else if property.hasPrefix("ACCEL_LOCATION=") {
                #expect(SensorLocation(locationValue: String(property.dropFirst("ACCEL_LOCATION=".count))) != nil, "\(line)")
                locations += 1
            } else {
                Issue.record("unexpected property line '\(line)'")
            }
        }
        #expect(matches == 3 && matrices == 3 && locations == 2)
    }

    /// A machine whose DMI modalias names `product`: a BOSC0200 pair labelled accel-display and
    /// accel-base, and an unlabelled KIOX000A, each below an i2c parent with an ACPI modalias.
    static func hwdbMachine(product: String) -> String {
        func accelerometer(_ number: Int, parent: String, modalias: String, name: String, label: String?) -> String {
            let attributes = [("name", name)] + (label.map { [("label", $0)] } ?? [])
                + [("in_accel_x_raw", "0"), ("in_accel_y_raw", "0"), ("in_accel_z_raw", "1024"), ("in_accel_scale", "0.009582")]
            return """
            P: /devices/platform/80860F41:03/i2c-3/\(parent)
            E: SUBSYSTEM=i2c
            A: modalias=\(modalias)\\n


            """ + Emulation.iioDevice("/devices/platform/80860F41:03/i2c-3/\(parent)/iio:device\(number)", number: number, attributes: attributes)
        }
        return """
        P: /devices/virtual/dmi/id
        E: SUBSYSTEM=dmi
        A: modalias=dmi:bvnExampleBIOS:bvr1.07:bd01/02/2024:svnExampleVendor:pn\(product):pvr1.0:rvnExampleVendor:rn\(product):\\n
        """ + "\n\n" + accelerometer(0, parent: "i2c-BOSC0200:00", modalias: "acpi:BOSC0200:BOSC0200:", name: "bmc150_accel", label: "accel-display")
            + accelerometer(1, parent: "i2c-BOSC0200:base", modalias: "acpi:BOSC0200:BOSC0200:", name: "bmc150_accel", label: "accel-base")
            + accelerometer(2, parent: "i2c-KIOX000A:00", modalias: "acpi:KIOX000A:KIOX000A:", name: "kxcjk1013", label: nil)
    }

    @Test("the hwdb example, compiled by systemd-hwdb, gives the machines it names their ACCEL_MOUNT_MATRIX and ACCEL_LOCATION, and motiond uses them",
          .enabled(if: canRunUdevTest, needsUdevTest))
    func hwdbExampleApplies() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let devices = ["iio:device0", "iio:device1", "iio:device2"]
        var results: [String: NamespaceRun] = [:]
        for product in ["ExampleConvertible11", "ExampleTablet8", "OtherLaptop"] {
            let fixture = dir.appendingPathComponent("\(product).umockdev")
            try Self.hwdbMachine(product: product).write(to: fixture, atomically: true, encoding: .utf8)
            let run = try await Self.udevTest(fixturePath: fixture.path, devices.map(Self.syspath), hwdb: [Self.hwdbExample])
            #expect(!run.output.stderr.contains("61-motiond-mount-matrix.hwdb"), "systemd-hwdb complained: \(run.output.stderr)")
            #expect(!run.output.stdout.contains("61-motiond-mount-matrix.hwdb"), "systemd-hwdb complained: \(run.output.stdout)")
            for device in devices {
                Self.expectServed(run[Self.syspath(device)], sensors: "accelerometer", gid: run.motiondGID)
            }
            results[product] = run
        }
        func quirks(_ product: String, _ device: String) -> [String] {
            let properties = results[product]![Self.syspath(device)].properties
            return ["ACCEL_MOUNT_MATRIX", "ACCEL_LOCATION"].compactMap { key in properties[key].map { "\(key)=\($0)" } }
        }
        // The convertible: both labelled sensors matched by label; the KIOX000A is not its sensor.
        #expect(quirks("ExampleConvertible11", "iio:device0") == ["ACCEL_MOUNT_MATRIX=0, 1, 0; -1, 0, 0; 0, 0, 1", "ACCEL_LOCATION=display"])
        #expect(quirks("ExampleConvertible11", "iio:device1") == ["ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, 1, 0; 0, 0, -1", "ACCEL_LOCATION=base"])
        #expect(quirks("ExampleConvertible11", "iio:device2") == [])
        // The tablet: only the unlabelled KIOX000A entry applies.
        #expect(quirks("ExampleTablet8", "iio:device0") == [])
        #expect(quirks("ExampleTablet8", "iio:device1") == [])
        #expect(quirks("ExampleTablet8", "iio:device2") == ["ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, -1, 0; 0, 0, 1"])
        // Another machine: nothing.
        for device in devices { #expect(quirks("OtherLaptop", device) == []) }

        // What motiond makes of them: the convertible with the properties udev gave it (as its
        // database would hold them), read by `motiond --list-sensors` through libudev.
        var text = Self.hwdbMachine(product: "ExampleConvertible11")
        for device in devices {
            let properties = quirks("ExampleConvertible11", device).map { "E: \($0)\n" }.joined()
            let node = "N: \(device)\n"
            text = text.replacingOccurrences(of: node, with: node + properties)
        }
        let fixture = dir.appendingPathComponent("with-properties.umockdev")
        try text.write(to: fixture, atomically: true, encoding: .utf8)
        let listing = try await Emulation.listing(fixturePath: fixture.path)
        let display = try #require(listing.sensors.first { $0.device == "iio:device0" })
        let base = try #require(listing.sensors.first { $0.device == "iio:device1" })
        let tablet = try #require(listing.sensors.first { $0.device == "iio:device2" })
        #expect(display.mountMatrix.source == "udev ACCEL_MOUNT_MATRIX")
        // BOSC0200 (bmc150): a chip that reports the specific force, its proper matrices made
        // improper for the accelerometer (z row negated: the gravity vector's sign).
        #expect(display.conversion.mountMatrix.matrix.rowMajor == [0, 1, 0, -1, 0, 0, 0, 0, -1])
        #expect(display.location == .display && display.locationSource == "udev ACCEL_LOCATION")
        #expect(base.mountMatrix.source == "udev ACCEL_MOUNT_MATRIX")
        #expect(base.conversion.mountMatrix.matrix.rowMajor == [-1, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(base.location == .base && base.locationSource == "udev ACCEL_LOCATION")
        #expect(tablet.mountMatrix.source == "default (identity)")
        #expect(listing.selected["accelerometer"] == "iio:device0", "the display accelerometer is served")
        // The base one is the base accelerometer: with the display's, the hinge angle.
        #expect(display.kind == .accelerometer && base.kind == .baseAccelerometer && tablet.kind == .accelerometer)
        #expect(listing.selected["baseAccelerometer"] == "iio:device1")
        #expect(listing.hinge == "measurable: display accelerometer iio:device0, base accelerometer iio:device1")
    }
}
