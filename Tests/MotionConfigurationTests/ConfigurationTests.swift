import FoundationEssentials
import MotionCore
import MotionIIO
import MotionProtocol
import Testing
@testable import MotionConfiguration

/// /etc/motiond/motiond.toml: the shipped file, every setting, partial detectors, and errors
/// that name the file, the line and the key.
@Suite("Configuration file")
struct ConfigurationTests {
    static let shippedFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("etc/motiond/motiond.toml").path
    static let file = "/etc/motiond/motiond.toml"

    @Test("the shipped etc/motiond/motiond.toml gives the defaults")
    func shippedFileIsTheDefaults() throws {
        #expect(try ConfigurationFile.load(Self.shippedFile) == DaemonConfiguration())
    }

    @Test("every setting the shipped file shows, uncommented, is a known key at its default")
    func shippedSettingsAreTheDefaults() throws {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: Self.shippedFile)), as: UTF8.self)
        var uncommented = 0
        let settings = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            // `#key = default` and `#[table]`; prose (`# …`) and examples (`#   …`) stay comments.
            guard line.hasPrefix("#"), let next = line.dropFirst().first, next == "[" || next.isLetter else { return line }
            uncommented += 1
            return line.dropFirst()
        }.joined(separator: "\n")
        #expect(uncommented == 60)
        #expect(try ConfigurationFile.parse(settings, file: Self.file) == DaemonConfiguration())
    }

    @Test("every key set to a value other than its default is read")
    func everyKey() throws {
        let text = """
        source = "sim:"
        sensors = ["accelerometer", "gyroscope"]
        poll-period = 0.02
        rest-interval = 0.5
        declination = -4.5

        [[mount-matrix]]
        device = "mpu6050"
        kind = "gyroscope"
        matrix = "0, 1, 0; 1, 0, 0; 0, 0, -1"

        [[mount-matrix]]
        kind = "accelerometer"
        matrix = "-1, 0, 0; 0, -1, 0; 0, 0, 1"

        [engine]
        magnetometer-calibration = "trusted"
        apply-axis-correction = true

        [detectors]
        hard-acceleration = 0.6
        acceleration-tolerance = 0.3

        [detectors.orientation]
        flat-enter = 20
        flat-exit = 40.0
        upright-threshold = 40.0
        settle-time = 0.2
        still-time = 0.06
        still-tolerance = 0.08
        maximum-rotation-rate = 2.0

        [detectors.shake]
        threshold = 1.5
        reversal-window = 0.4
        required-reversals = 3
        quiet-time = 0.25
        maximum-duration = 4.0

        [detectors.slap]
        high-pass-tau = 0.2
        threshold = 1.2
        settle-time = 0.6
        refractory-time = 0.7

        [detectors.tap]
        high-pass-tau = 0.04
        threshold = 2.0
        ring-time = 0.1
        maximum-duration = 0.3
        double-tap-window = 0.4

        [detectors.posture]
        closed-below = 10
        flat-from = 160
        flat-to = 200
        tablet-from = 320
        hysteresis = 8
        upright-share = 0.4
        settle-time = 0.2
        moving-settle-time = 0.6

        [socket]
        path = "/tmp/motiond-test.sock"
        group = "daemon"
        mode = "0660"

        [access]
        group = "adm"
        others = "none"
        active-session-rate = 25

        [state]
        path = "/tmp/motiond-test/engine.json"
        save-interval = 5

        [dbus]
        sensor-proxy = true

        [convertible]
        tablet-mode-switch = "on"
        tablet-mode-postures = ["tablet", "flat"]

        [iio]
        software-trigger = "off"
        """
        var expected = DaemonConfiguration()
        expected.source = .simulated
        expected.sensors = [.accelerometer, .gyroscope]
        expected.pollPeriod = 0.02
        expected.restInterval = 0.5
        expected.iio.softwareTrigger = .off
        expected.trueNorth = .declination(-4.5)
        expected.mountMatrix = [
            MountMatrixOverride(device: "mpu6050", kind: .gyroscope, matrix: try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1")),
            MountMatrixOverride(kind: .accelerometer, matrix: try MountMatrix(parsing: "-1, 0, 0; 0, -1, 0; 0, 0, 1")),
        ]
        expected.engine.magnetometerCalibration = .trusted
        expected.engine.applyAxisCorrection = true
        expected.detectors.hardAcceleration = 0.6
        expected.detectors.accelerationTolerance = 0.3
        expected.detectors.orientation.flatEnter = 20
        expected.detectors.orientation.flatExit = 40
        expected.detectors.orientation.uprightThreshold = 40
        expected.detectors.orientation.settleTime = 0.2
        expected.detectors.orientation.stillTime = 0.06
        expected.detectors.orientation.stillTolerance = 0.08
        expected.detectors.orientation.maximumRotationRate = 2
        expected.detectors.shake.threshold = 1.5
        expected.detectors.shake.reversalWindow = 0.4
        expected.detectors.shake.requiredReversals = 3
        expected.detectors.shake.quietTime = 0.25
        expected.detectors.shake.maximumDuration = 4
        expected.detectors.slap.highPassTau = 0.2
        expected.detectors.slap.threshold = 1.2
        expected.detectors.slap.settleTime = 0.6
        expected.detectors.slap.refractoryTime = 0.7
        expected.detectors.tap.highPassTau = 0.04
        expected.detectors.tap.threshold = 2
        expected.detectors.tap.ringTime = 0.1
        expected.detectors.tap.maximumDuration = 0.3
        expected.detectors.tap.doubleTapWindow = 0.4
        expected.detectors.posture.closedBelow = 10
        expected.detectors.posture.flatFrom = 160
        expected.detectors.posture.flatTo = 200
        expected.detectors.posture.tabletFrom = 320
        expected.detectors.posture.hysteresis = 8
        expected.detectors.posture.uprightShare = 0.4
        expected.detectors.posture.settleTime = 0.2
        expected.detectors.posture.movingSettleTime = 0.6
        expected.socket.path = "/tmp/motiond-test.sock"
        // Groups every Debian system has (base-passwd).
        let daemon = try #require(SystemGroup.named("daemon")), adm = try #require(SystemGroup.named("adm"))
        expected.socket.group = daemon
        expected.socket.mode = 0o660
        expected.access.group = adm
        expected.access.others = .nothing
        expected.access.activeSessionRate = 25
        expected.state.path = "/tmp/motiond-test/engine.json"
        expected.state.saveInterval = 5
        expected.dbus.sensorProxy = true
        expected.convertible.tabletModeSwitch = .on
        expected.convertible.tabletModePostures = [.tablet, .flat]

        // Every detector parameter is among those changed (a new one must be added here).
        let changed = try Self.leaves(expected.detectors), defaults = try Self.leaves(DetectorConfiguration())
        #expect(changed.keys == defaults.keys)
        for (key, value) in defaults { #expect(changed[key] != value, "detectors.\(key) is not exercised") }

        let configuration = try ConfigurationFile.parse(text, file: Self.file)
        #expect(configuration == expected)
        let engine = try configuration.engineConfiguration()
        #expect(engine.magnetometerCalibration == .trusted)
        #expect(engine.applyAxisCorrection)
        #expect(engine.declination == -4.5)
    }

    @Test("true north by location, altitude defaulting to 0; the declination comes from WMM2025 on the day")
    func location() throws {
        let configuration = try ConfigurationFile.parse("[location]\nlatitude = 52.52\nlongitude = 13.40\n", file: Self.file)
        #expect(configuration.trueNorth == .location(latitude: 52.52, longitude: 13.40, altitude: 0))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let day = try #require(calendar.date(from: DateComponents(year: 2026, month: 6, day: 1)))
        let declination = try #require(try configuration.engineConfiguration(on: day).declination)
        #expect((4...7).contains(declination))   // Berlin: about 5.6° east in 2026
        #expect(try DaemonConfiguration().engineConfiguration(on: day).declination == nil)
    }

    @Test("detectors: only the keys given change, however the tables are written", arguments: [
        "[detectors.shake]\nthreshold = 1.5\n",
        "[detectors]\nshake.threshold = 1.5\n",
        "detectors.shake.threshold = 1.5\n",
        "[detectors]\nshake = { threshold = 1.5 }\n",
    ])
    func partialDetectors(text: String) throws {
        var expected = DetectorConfiguration()
        expected.shake.threshold = 1.5
        #expect(try ConfigurationFile.parse(text, file: Self.file).detectors == expected)
    }

    @Test("keys an earlier release read are ignored with a warning naming file, line and key; others are still refused")
    func retiredKeys() throws {
        let text = "[detectors.orientation]\nsettle-time = 0.2\nkeep-within = 60.0\nupright-minimum-tilt = 30\n"
        let configuration = try ConfigurationFile.parse(text, file: Self.file)
        #expect(configuration.detectors.orientation.settleTime == 0.2)
        let why = "no longer used since 0.19.0: upright orientations follow iio-sensor-proxy's rule (upright-threshold); ignored"
        #expect(configuration.ignoredKeys.map(\.description) == [
            "\(Self.file):3: detectors.orientation.keep-within: \(why)",
            "\(Self.file):4: detectors.orientation.upright-minimum-tilt: \(why)",
        ])
        #expect(try ConfigurationFile.parse("[detectors.orientation]\nsettle-time = 0.2\n", file: Self.file).ignoredKeys.isEmpty)
        let error = try #require(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("[detectors.shake]\nkeep-within = 60.0\n", file: Self.file)
        }
        #expect(error.key == "detectors.shake.keep-within" && error.message.hasPrefix("unknown key"))
    }

    /// A file that must be refused, and what the error must say.
    struct BadFile: Sendable, CustomTestStringConvertible {
        var what: String
        var text: String
        var line: Int?
        var key: String?
        var message: String

        var testDescription: String { what }
    }

    @Test("errors name the file, the line and the key", arguments: [
        BadFile(what: "TOML syntax error", text: "source = \"sim:\"\n[socket]\nmode = \"0660\n",
                line: 3, key: "socket.mode", message: "Error while parsing string"),
        BadFile(what: "TOML syntax error: a key given twice", text: "[state]\nsave-interval = 10\nsave-interval = 20\n",
                line: 3, key: "state.save-interval", message: "save-interval"),
        BadFile(what: "TOML syntax error: no key to name", text: "source = \"sim:\"\n[socket\npath = \"/run/m.sock\"\n",
                line: 2, key: nil, message: "Error while parsing table header"),
        BadFile(what: "wrong type", text: "[state]\n\nsave-interval = \"30\"\n",
                line: 3, key: "state.save-interval", message: "expected a number, got a string"),
        BadFile(what: "wrong type for a table", text: "socket = \"/run/motiond.sock\"\n",
                line: 1, key: "socket", message: "expected a table, got a string"),
        BadFile(what: "wrong type in a detector", text: "[detectors.tap]\nthreshold = true\n",
                line: 2, key: "detectors.tap.threshold", message: "expected a number, got true or false"),
        BadFile(what: "a fraction for a whole number", text: "[detectors.shake]\nthreshold = 1.5\nrequired-reversals = 2.5\n",
                line: 3, key: "detectors.shake.required-reversals", message: "whole number"),
        BadFile(what: "bad enum value", text: "[engine]\nmagnetometer-calibration = \"sometimes\"\n",
                line: 2, key: "engine.magnetometer-calibration", message: "expected online or trusted, got \"sometimes\""),
        BadFile(what: "bad enum value in an inline table", text: "access = { others = \"some\" }\n",
                line: 1, key: "access.others", message: "expected coarse or none, got \"some\""),
        BadFile(what: "bad sensor", text: "sensors = [\"accelerometer\", \"gyro\"]\n",
                line: 1, key: "sensors", message: "expected accelerometer, gyroscope, magnetometer, light, proximity, baseAccelerometer or baseGyroscope, got \"gyro\""),
        BadFile(what: "no sensors", text: "sensors = []\n", line: 1, key: "sensors", message: "expected at least one sensor"),
        BadFile(what: "bad tablet-mode switch", text: "[convertible]\ntablet-mode-switch = \"yes\"\n", line: 2, key: "convertible.tablet-mode-switch",
                message: "expected auto, on or off, got \"yes\""),
        BadFile(what: "bad software trigger", text: "[iio]\nsoftware-trigger = \"hrtimer\"\n", line: 2, key: "iio.software-trigger",
                message: "expected auto or off, got \"hrtimer\""),
        BadFile(what: "unknown [iio] key", text: "[iio]\nsoftware-triggers = \"off\"\n", line: 2, key: "iio.software-triggers",
                message: "unknown key"),
        BadFile(what: "bad tablet-mode posture", text: "[convertible]\ntablet-mode-postures = [\"tablet\", \"folded\"]\n", line: 2,
                key: "convertible.tablet-mode-postures", message: "expected closed, laptop, flat, tent, stand or tablet, got \"folded\""),
        BadFile(what: "bad source", text: "source = \"usb:\"\n", line: 1, key: "source", message: "unsupported source 'usb:'"),
        BadFile(what: "a replay trace that is not there", text: "# replay\nsource = \"replay:/nonexistent-motiond-test/trace.csv\"\n",
                line: 2, key: "source", message: "cannot read the trace /nonexistent-motiond-test/trace.csv: No such file or directory"),
        BadFile(what: "bad mode", text: "[socket]\npath = \"/run/m.sock\"\nmode = \"0968\"\n",
                line: 3, key: "socket.mode", message: "expected an octal mode like \"0660\", got \"0968\""),
        BadFile(what: "mode beyond the permission bits", text: "[socket]\nmode = \"1777\"\n",
                line: 2, key: "socket.mode", message: "expected an octal mode like \"0660\", got \"1777\""),
        BadFile(what: "mode as a TOML octal integer", text: "[socket]\nmode = 0o660\n",
                line: 2, key: "socket.mode", message: "expected an octal mode like \"0660\", got an integer"),
        BadFile(what: "relative path", text: "[state]\npath = \"engine.json\"\n",
                line: 2, key: "state.path", message: "expected an absolute path, got \"engine.json\""),
        BadFile(what: "save interval not positive", text: "[state]\nsave-interval = 0\n",
                line: 2, key: "state.save-interval", message: "expected a positive number of seconds, got 0"),
        BadFile(what: "poll period out of range", text: "poll-period = 0.5\n",
                line: 1, key: "poll-period", message: "expected 0.01 to 0.1 s, got 0.5"),
        BadFile(what: "rest interval out of range", text: "rest-interval = 0.01\n",
                line: 1, key: "rest-interval", message: "expected 0 (off) or 0.05 to 5 s, got 0.01"),
        BadFile(what: "rate out of range", text: "[access]\nactive-session-rate = 200\n",
                line: 2, key: "access.active-session-rate", message: "expected 0 to 100 Hz, got 200"),
        BadFile(what: "non-finite number", text: "[access]\nactive-session-rate = inf\n",
                line: 2, key: "access.active-session-rate", message: "expected a finite number"),
        BadFile(what: "latitude without longitude", text: "source = \"sim:\"\n[location]\nlatitude = 52.52\n",
                line: 2, key: "location.longitude", message: "missing: a location needs both latitude and longitude"),
        BadFile(what: "latitude out of range", text: "[location]\nlatitude = 95\nlongitude = 13.4\n",
                line: 1, key: "location", message: "latitude 95"),
        BadFile(what: "declination with location", text: "declination = 4.5\n[location]\nlatitude = 52.52\nlongitude = 13.40\n",
                line: 1, key: "declination", message: "declination and [location] exclude each other"),
        BadFile(what: "unknown key", text: "[state]\npath = \"/var/lib/motiond/engine.json\"\nsave-intreval = 10\n",
                line: 3, key: "state.save-intreval", message: "unknown key; state has path and save-interval"),
        BadFile(what: "unknown key at the top", text: "source = \"sim:\"\nsoruce = \"sim:\"\n",
                line: 2, key: "soruce", message: "unknown key; the top level has"),
        BadFile(what: "unknown table", text: "source = \"sim:\"\n\n[sockets]\npath = \"/run/m.sock\"\n",
                line: 3, key: "sockets", message: "unknown table"),
        BadFile(what: "unknown detector parameter", text: "[detectors.shake]\nthreshhold = 2\n",
                line: 2, key: "detectors.shake.threshhold", message: "unknown key; detectors.shake has"),
        BadFile(what: "a detector parameter in camelCase", text: "[detectors]\nhardAcceleration = 0.6\n",
                line: 2, key: "detectors.hardAcceleration", message: "unknown key; detectors has acceleration-tolerance, hard-acceleration"),
        BadFile(what: "mount matrix without a kind", text: "[[mount-matrix]]\nkind = \"gyroscope\"\nmatrix = \"1,0,0;0,1,0;0,0,1\"\n\n[[mount-matrix]]\nmatrix = \"1,0,0;0,1,0;0,0,1\"\n",
                line: 5, key: "mount-matrix[1].kind", message: "missing"),
        BadFile(what: "singular mount matrix", text: "[[mount-matrix]]\nkind = \"gyroscope\"\nmatrix = \"1, 0, 0; 1, 0, 0; 0, 0, 1\"\n",
                line: 3, key: "mount-matrix[0].matrix", message: "singular"),
        BadFile(what: "unknown key in a mount matrix", text: "[[mount-matrix]]\nkind = \"gyroscope\"\ndevise = \"mpu6050\"\n",
                line: 3, key: "mount-matrix[0].devise", message: "unknown key"),
        BadFile(what: "an array of tables for a table", text: "source = \"sim:\"\n[[engine]]\nmagnetometer-calibration = \"online\"\n",
                line: 2, key: "engine", message: "expected a table, got an array"),
        BadFile(what: "an array of tables for a detector table", text: "[[detectors.shake]]\nthreshold = 1.5\n",
                line: 1, key: "detectors.shake", message: "expected a table, got an array"),
        BadFile(what: "an unknown table by a dotted key", text: "source = \"sim:\"\na.b.c.d.e.f.g.h = 1\n",
                line: 2, key: "a", message: "unknown table"),
        BadFile(what: "a dotted key 20,000 deep", text: "source = \"sim:\"\n" + Array(repeating: "a", count: 20000).joined(separator: ".") + " = 1\n",
                line: 2, key: "a", message: "nest deeper than 32 levels"),
        BadFile(what: "arrays nested 10,000 deep", text: "source = \"sim:\"\nsensors = " + String(repeating: "[", count: 10_000) + "\n",
                line: 2, key: "sensors", message: "nest"),
        BadFile(what: "inline tables nested 10,000 deep", text: "source = \"sim:\"\naccess = " + String(repeating: "{ a = ", count: 10_000) + "\n",
                line: 2, key: "access", message: "nest"),
        BadFile(what: "arrays nested 33 deep (32 is the limit)", text: "source = \"sim:\"\n# [[[[ not counted\nsensors = " + String(repeating: "[", count: 33) + "\n",
                line: 3, key: "sensors", message: "nest deeper than 32 levels"),
        BadFile(what: "an unknown array of tables", text: "source = \"sim:\"\n\n[[mount-matrixes]]\nkind = \"gyroscope\"\n",
                line: 3, key: "mount-matrixes", message: "unknown array of tables; the top level has"),
        BadFile(what: "an unknown table by a dotted header", text: "source = \"sim:\"\n\n[foo.bar.baz]\nx = 1\n",
                line: 3, key: "foo", message: "unknown table"),
        BadFile(what: "an unknown table under a known one", text: "[detectors.shake.extra]\nx = 1\n",
                line: 1, key: "detectors.shake.extra", message: "unknown table"),
        BadFile(what: "a dotted key where a number belongs", text: "[detectors]\n\nshake.threshold.x.y = 1\n",
                line: 3, key: "detectors.shake.threshold", message: "expected a number, got a table"),
        BadFile(what: "a header where a number belongs", text: "[detectors.shake.threshold]\nx = 1\n",
                line: 1, key: "detectors.shake.threshold", message: "expected a number, got a table"),
        BadFile(what: "a negative threshold", text: "[detectors.shake]\nthreshold = -1e308\n",
                line: 2, key: "detectors.shake.threshold", message: "expected more than 0 and at most 16 G, got -1e+308"),
        BadFile(what: "reversals of -9e18", text: "[detectors.shake]\n\nrequired-reversals = -9000000000000000000\n",
                line: 3, key: "detectors.shake.required-reversals", message: "expected 1 to 100, got -9e+18"),
        BadFile(what: "a negative time constant", text: "[detectors.slap]\nhigh-pass-tau = -1\n",
                line: 2, key: "detectors.slap.high-pass-tau", message: "expected more than 0 and at most 10 s, got -1"),
        BadFile(what: "a zero time constant", text: "detectors.tap.high-pass-tau = 0\n",
                line: 1, key: "detectors.tap.high-pass-tau", message: "expected more than 0 and at most 10 s, got 0"),
        BadFile(what: "an angle beyond 90°", text: "[detectors]\norientation = { flat-enter = 400 }\n",
                line: 2, key: "detectors.orientation.flat-enter", message: "expected 0 to 90°, got 400"),
        BadFile(what: "not a number in a detector", text: "[detectors.shake]\nthreshold = nan\n",
                line: 2, key: "detectors.shake.threshold", message: "expected a finite number"),
        BadFile(what: "a NUL byte hiding an unknown table", text: "source = \"sim:\"\n# \u{0}\n[sockets]\npath = \"/run/m.sock\"\n",
                line: 2, key: nil, message: "control character U+0000"),
        BadFile(what: "a NUL byte in a value", text: "[state]\npath = \"/var/lib/motiond/engine.json\u{0}\"\nsave-interval = 10\n",
                line: 2, key: "state.path", message: "control character U+0000"),
        BadFile(what: "an escaped NUL in a choice", text: "[convertible]\ntablet-mode-switch = \"on\\u0000garbage\"\n",
                line: 2, key: "convertible.tablet-mode-switch", message: "expected auto, on or off, got a string with a NUL character (\\u0000) in it"),
        BadFile(what: "an escaped NUL in the mode", text: "[socket]\nmode = \"0666\\u0000x\"\n",
                line: 2, key: "socket.mode", message: "got a string with a NUL character (\\u0000) in it"),
        BadFile(what: "an escaped NUL (long form) in a path", text: "[state]\npath = \"/var/lib/motiond/engine.json\\U00000000.bak\"\n",
                line: 2, key: "state.path", message: "expected an absolute path, got a string with a NUL character"),
        BadFile(what: "an escaped NUL after a group that exists", text: "[access]\ngroup = \"root\\u0000x\"\n",
                line: 2, key: "access.group", message: "expected a group name, got a string with a NUL character"),
        BadFile(what: "an escaped NUL in the source", text: "source = \"sim:\\u0000\"\n",
                line: 1, key: "source", message: "expected a source URI, got a string with a NUL character"),
        BadFile(what: "an escaped NUL in a multi-line string", text: "[[mount-matrix]]\nkind = \"accelerometer\"\nmatrix = \"\"\"\n1, 0, 0; 0, 1, 0; 0, 0, 1\\u0000\"\"\"\n",
                line: 3, key: "mount-matrix[0].matrix", message: "got a string with a NUL character"),
        BadFile(what: "an escaped NUL in an array of choices", text: "sensors = [\"accelerometer\", \"gyroscope\\u0000\"]\n",
                line: 1, key: "sensors", message: "got a string with a NUL character"),
        BadFile(what: "a control character", text: "source = \"sim:\"\n\n\u{1B}[detectors]\n",
                line: 3, key: nil, message: "control character U+001B"),
        BadFile(what: "DEL", text: "source = \"sim:\" # \u{7F}\n", line: 1, key: "source", message: "control character U+007F"),
        BadFile(what: "an error in a file with CRLF line ends", text: "source = \"sim:\"\r\n\r\n[state]\r\nsave-interval = -1\r\n",
                line: 4, key: "state.save-interval", message: "expected a positive number of seconds"),
        BadFile(what: "a carriage return without a line feed", text: "source = \"sim:\"\r[sockets]\n",
                line: 1, key: "source", message: "carriage return"),
    ])
    func errors(bad: BadFile) throws {
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFile.parse(bad.text, file: Self.file) }
        #expect(error.file == Self.file)
        #expect(error.line == bad.line)
        #expect(error.key == bad.key)
        #expect(error.message.contains(bad.message), "\(error)")
        let place = [Self.file + (bad.line.map { ":\($0)" } ?? "")] + (bad.key.map { [$0] } ?? [])
        #expect(error.description == (place + [error.message]).joined(separator: ": "), "\(error)")
    }

    @Test("nesting is counted in values only: brackets in strings of every kind and in comments do not count")
    func nestingScan() {
        let deep = String(repeating: "[", count: 40)
        let quiet = [
            "a = \"\(deep)\"", "a = '\(deep)'", "a = \"\"\"\n\(deep)\n\"\"\"", "a = '''\n\(deep)\n'''", "# \(deep)",
            "a = \"\\\"\(deep)\"", "[[mount-matrix]]\nmatrix = \"1, 0, 0; 0, 1, 0; 0, 0, 1\"",
        ]
        for text in quiet { #expect(TOMLNesting.firstExcess(in: text) == nil, "\(text)") }
        #expect(TOMLNesting.firstExcess(in: "a = \"x\"\nb = '''\n'''\nc = " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32)) == nil)
        #expect(TOMLNesting.firstExcess(in: "a = \"x\"\nb = '''\n'''\nc = " + String(repeating: "{ d = [", count: 17)) == 4)
        // Dots in keys and headers are levels; dots in numbers and strings are not.
        let dots = Array(repeating: "a", count: 34).joined(separator: ".")
        #expect(TOMLNesting.firstExcess(in: "x = 1.5\ny = [1.5, 2.5]\nz = \"\(dots)\"\n[detectors.shake]\nthreshold = 1.5\n[[mount-matrix]]\n") == nil)
        #expect(TOMLNesting.firstExcess(in: "x = 1\n\(dots) = 1\n") == 2)
        #expect(TOMLNesting.firstExcess(in: "x = 1\n\n[\(dots)]\n") == 3)
        #expect(TOMLNesting.firstExcess(in: "x = { \(dots) = 1 }\n") == 1)
        #expect(TOMLNesting.firstExcess(in: "x = { a = 1, \(dots) = 1 }\n") == 1)
    }

    @Test("every detector parameter is checked against its documented range, its bounds included or not as documented")
    func detectorRanges() throws {
        for range in DetectorConfiguration.ranges {
            let parts = range.path.split(separator: ".").map { ConfigurationFile.kebabCase(String($0)) }
            let key = (["detectors"] + parts).joined(separator: ".")
            func read(_ value: Double) throws -> DetectorConfiguration {
                let number = range.unit.isEmpty ? String(Int64(value)) : "\(value)"
                return try ConfigurationFile.parse("# \(range.path)\n\(key) = \(number)\n", file: Self.file).detectors
            }
            #expect(try read(range.upper).problem == nil, "\(key) = \(range.upper)")
            let middle = (range.lower + range.upper) / 2
            #expect(try read(range.unit.isEmpty ? middle.rounded(.down) : middle).problem == nil, "\(key) = \(middle)")
            let outside = [range.upper + 1, range.lower - 1, -1e18] + (range.lowerIncluded ? [] : [range.lower])
            for value in outside {
                let error = try #require(throws: ConfigurationError.self, "\(key) = \(value)") { try read(value) }
                #expect(error.line == 2 && error.key == key, "\(error)")
                #expect(error.message.hasPrefix("expected \(range.text), got "), "\(error)")
            }
            if range.lowerIncluded { #expect(try read(range.lower).problem == nil, "\(key) = \(range.lower)") }
        }
    }

    @Test("docs/EVENTS.md lists every detector parameter with its file key, default and valid values as the code has them")
    func documentedRanges() throws {
        let events = URL(fileURLWithPath: Self.shippedFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/EVENTS.md")
        let rows = String(decoding: try Data(contentsOf: events), as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("| `") }
        let defaults = try Self.leaves(DetectorConfiguration())
        for range in DetectorConfiguration.ranges {
            let fileKey = range.path.split(separator: ".").map { ConfigurationFile.kebabCase(String($0)) }.joined(separator: ".")
            guard case .number(let value)? = defaults[range.path] else {
                Issue.record("\(range.path): no default")
                continue
            }
            let row = "| `\(range.path)` | `\(fileKey)` | \(DecimalText.shortest(value)) | \(range.text) |"
            #expect(rows.contains { $0.hasPrefix(row) }, "docs/EVENTS.md has no row \(row)")
        }
    }

    @Test("a file with CRLF line ends and tabs is read")
    func crlf() throws {
        #expect(try ConfigurationFile.parse("[state]\r\n\tsave-interval = 10\t# ten\r\n", file: Self.file).state.saveInterval == 10)
    }

    @Test("a NUL byte read from a file is refused with its line, not taken for the end of the file")
    func nulInFile() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("motiond.toml").path
        try Data("source = \"sim:\"\n\0\n[sockets]\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFile.load(path) }
        #expect(error.file == path)
        #expect(error.line == 2)
        #expect(error.message.contains("U+0000"), "\(error)")
    }

    @Test("an error reads FILE:LINE: KEY: MESSAGE")
    func errorDescription() {
        #expect(throws: ConfigurationError(file: Self.file, line: 2, key: "socket.mode", message: "expected an octal mode like \"0660\", got \"0968\"")) {
            try ConfigurationFile.parse("[socket]\nmode = \"0968\"\n", file: Self.file)
        }
        let error = ConfigurationError(file: Self.file, line: 12, key: "socket.mode", message: "expected an octal mode like \"0660\", got \"x\"")
        #expect(error.description == "/etc/motiond/motiond.toml:12: socket.mode: expected an octal mode like \"0660\", got \"x\"")
    }

    @Test("a file named explicitly must exist")
    func missingExplicitFile() throws {
        let path = "/nonexistent-motiond-test/motiond.toml"
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFile.load(path) }
        #expect(error == ConfigurationError(file: path, line: nil, key: nil, message: "no such file"))
        #expect(error.description == "\(path): no such file")
    }

    @Test("without a file at the default path the defaults apply; with one, it is read")
    func defaultPath() throws {
        #expect(try ConfigurationFile.load(nil, defaultPath: "/nonexistent-motiond-test/motiond.toml") == DaemonConfiguration())
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("motiond.toml").path
        try Data("[state]\nsave-interval = 10\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try ConfigurationFile.load(nil, defaultPath: path).state.saveInterval == 10)
        #expect(try ConfigurationFile.load(path).state.saveInterval == 10)
    }

    @Test("a file that is not UTF-8 is refused, naming the file and the line")
    func notUTF8() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("latin1.toml").path
        try Data([0x23, 0x0A, 0x23, 0x20, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationFile.load(path) }
        #expect(error.file == path)
        #expect(error.line == 2)
        #expect(error.message.contains("UTF-8"))
    }

    @Test("key lines: tables, arrays of tables, dotted and quoted keys, multi-line strings")
    func keyLines() {
        let lines = TOMLKeyLines("""
        a = 1
        [t]
        "quoted" = 2
        x.y = '''
        z = 3
        '''
        [[m]]
        k = 4
        [[m]]
        k = 5
        v = [
          [1, 2],
        ]
        w = 6
        """)
        #expect(lines.line(of: ["a"]) == 1)
        #expect(lines.line(of: ["t", "quoted"]) == 3)
        #expect(lines.line(of: ["t", "x", "y"]) == 4)
        #expect(lines.line(of: ["t", "z"]) == 2)   // inside a string: not a key; its table's line
        #expect(lines.line(of: ["m", "1", "k"]) == 10)
        #expect(lines.name(atLine: 10) == "m[1].k")
        #expect(lines.line(of: ["m", "1", "w"]) == 14)   // after a line of an array that is no header
        #expect(lines.line(of: ["absent"]) == nil)
    }

    /// The detector parameters as `section.parameter` → value.
    static func leaves(_ detectors: DetectorConfiguration) throws -> [String: JSONValue] {
        guard case .object(let fields) = try JSONValue.parse(JSONEncoder().encode(detectors)) else { return [:] }
        return fields.reduce(into: [:]) { result, field in
            if case .object(let nested) = field.value {
                for (key, value) in nested { result["\(field.key).\(key)"] = value }
            } else {
                result[field.key] = field.value
            }
        }
    }

    /// A new directory of its own under the temporary directory, for one test.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("motiond-configuration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
