import FoundationEssentials
import Glibc
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync
import TOMLKit

/// Reads motiond's configuration file, `/etc/motiond/motiond.toml` (TOML, kebab-case keys), into
/// a ``DaemonConfiguration``: every key the file leaves out keeps its default.
///
/// Validation is strict. A key or table the daemon does not know is an error, not something to
/// skip: a typo in a configuration file (`[sockets]`, `save-intreval`) must not silently leave
/// the default in force. This is the opposite of the socket protocol, whose readers ignore
/// fields they do not know so that old clients and new daemons interoperate; a configuration
/// file has one reader, the daemon it was written for. Every error names the file, the line and
/// the key: `/etc/motiond/motiond.toml:12: socket.mode: expected an octal mode like "0660", got "660x"`.
public enum ConfigurationFile {
    /// Where the daemon looks when no file is named.
    public static let defaultPath = "/etc/motiond/motiond.toml"

    /// The configuration in `path`, or in `defaultPath` when `path` is nil. A missing default
    /// file gives the defaults (the daemon needs no file); a missing file named explicitly is
    /// an error.
    public static func load(_ path: String?, defaultPath: String = defaultPath) throws(ConfigurationError) -> DaemonConfiguration {
        let file = path ?? defaultPath
        let bytes: [UInt8]
        switch contents(of: file) {
        case .success(let read):
            bytes = read
        case .failure(let problem):
            if path == nil, problem.code == ENOENT { return DaemonConfiguration() }
            throw ConfigurationError(file: file, line: nil, key: nil,
                                     message: problem.code == ENOENT ? "no such file" : "cannot read: \(problem)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: file, line: firstInvalidUTF8Line(bytes), key: nil, message: "not UTF-8 text, as TOML must be")
        }
        return try parse(text, file: file)
    }

    /// The configuration `text` describes; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> DaemonConfiguration {
        let lines = TOMLKeyLines(text)
        // TOMLKit reads a C string: a NUL would end the file there, hiding every key after it.
        // TOML allows no control character but tab and the line ends anywhere in a file.
        if let (line, problem) = forbiddenCharacter(in: text) {
            throw ConfigurationError(file: file, line: line, key: lines.name(atLine: line), message: problem)
        }
        if let line = TOMLNesting.firstExcess(in: text) {
            // Only the key's first part: the rest may be thousands long.
            let key = lines.name(atLine: line)?.split(separator: ".").first.map(String.init)
            throw ConfigurationError(file: file, line: line, key: key,
                                     message: "arrays and tables nest deeper than \(TOMLNesting.limit) levels")
        }
        let document: TOMLTable
        do {
            document = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            throw ConfigurationError(file: file, line: line, key: lines.name(atLine: line), message: error.description)
        } catch {
            throw ConfigurationError(file: file, line: nil, key: nil, message: "\(error)")
        }
        let top = try ConfigurationTable(top: document, file: file, lines: lines, known: [
            "source", "sensors", "poll-period", "rest-interval", "mount-matrix", "declination", "location", "engine", "detectors", "socket", "access", "state", "dbus", "convertible", "iio",
        ])
        var configuration = DaemonConfiguration()
        if let source = try top.string("source", expected: "a source URI") {
            do {
                configuration.source = try SourceURI(parsing: source)
            } catch {
                throw top.error("source", "\(error)")
            }
            // A trace that is not there is this file's error, found before the daemon starts.
            if case .replay(let trace) = configuration.source {
                do {
                    close(try RegularFile.open(trace))
                } catch {
                    throw top.error("source", "cannot read the trace \(trace): \(error)")
                }
            }
        }
        if let sensors = try top.choices("sensors", among: SensorKind.allCases) {
            guard !sensors.isEmpty else { throw top.error("sensors", "expected at least one sensor") }
            configuration.sensors = Set(sensors)
        }
        if let period = try top.number("poll-period") {
            let periods = Wire.hardwarePeriods
            guard periods.contains(period) else {
                throw top.error("poll-period", "expected \(DecimalText.shortest(periods.lowerBound)) to \(DecimalText.shortest(periods.upperBound)) s, got \(DecimalText.shortest(period))")
            }
            configuration.pollPeriod = period
        }
        if let interval = try top.number("rest-interval") {
            let intervals = DaemonConfiguration.restIntervals
            guard interval == 0 || intervals.contains(interval) else {
                throw top.error("rest-interval", "expected 0 (off) or \(DecimalText.shortest(intervals.lowerBound)) to \(DecimalText.shortest(intervals.upperBound)) s, got \(DecimalText.shortest(interval))")
            }
            configuration.restInterval = interval
        }
        if let entries = try top.tables("mount-matrix", known: ["device", "kind", "matrix"]) {
            configuration.mountMatrix = try entries.map(mountMatrix)
        }
        configuration.trueNorth = try trueNorth(top)
        if let table = try top.table("engine", known: ["magnetometer-calibration", "apply-axis-correction"]) {
            configuration.engine = try engine(table)
        }
        (configuration.detectors, configuration.ignoredKeys) = try detectors(top)
        if let table = try top.table("socket", known: ["path", "group", "mode"]) {
            configuration.socket = try socket(table)
        }
        if let table = try top.table("access", known: ["group", "others", "active-session-rate"]) {
            configuration.access = try access(table)
        }
        if let table = try top.table("state", known: ["path", "save-interval"]) {
            configuration.state = try state(table)
        }
        if let table = try top.table("dbus", known: ["sensor-proxy"]) {
            if let on = try table.bool("sensor-proxy") { configuration.dbus.sensorProxy = on }
        }
        if let table = try top.table("convertible", known: ["tablet-mode-switch", "tablet-mode-postures"]) {
            if let mode = try table.choice("tablet-mode-switch", among: DaemonConfiguration.Convertible.TabletModeSwitch.allCases) {
                configuration.convertible.tabletModeSwitch = mode
            }
            if let postures = try table.choices("tablet-mode-postures", among: Posture.allCases.filter { $0 != .unknown }) {
                configuration.convertible.tabletModePostures = Set(postures)
            }
        }
        if let table = try top.table("iio", known: ["software-trigger"]),
           let mode = try table.choice("software-trigger", among: SoftwareTriggerMode.allCases) {
            configuration.iio.softwareTrigger = mode
        }
        return configuration
    }

    private static func engine(_ table: ConfigurationTable) throws(ConfigurationError) -> DaemonConfiguration.Engine {
        var engine = DaemonConfiguration.Engine()
        if let mode = try table.choice("magnetometer-calibration", among: [MotionEngine.MagnetometerCalibrationMode.online, .trusted]) {
            engine.magnetometerCalibration = mode
        }
        if let apply = try table.bool("apply-axis-correction") { engine.applyAxisCorrection = apply }
        return engine
    }

    private static func socket(_ table: ConfigurationTable) throws(ConfigurationError) -> DaemonConfiguration.Socket {
        var socket = DaemonConfiguration.Socket()
        if let path = try table.path("path") { socket.path = path }
        socket.group = try table.group("group")
        if let text = try table.string("mode", expected: #"an octal mode like "0660""#) {
            // Permission bits only, as "0660" or "660".
            guard (3...4).contains(text.count), text.allSatisfy({ ("0"..."7").contains($0) }),
                  let mode = mode_t(text, radix: 8), mode <= 0o777 else {
                throw table.error("mode", #"expected an octal mode like "0660", got "\#(text)""#)
            }
            socket.mode = mode
        }
        return socket
    }

    private static func access(_ table: ConfigurationTable) throws(ConfigurationError) -> DaemonConfiguration.Access {
        var access = DaemonConfiguration.Access()
        access.group = try table.group("group")
        if let others = try table.choice("others", among: DaemonConfiguration.Access.Others.allCases) { access.others = others }
        if let rate = try table.number("active-session-rate") {
            let fastest = 1 / Wire.minimumInterval
            guard (0...fastest).contains(rate) else {
                throw table.error("active-session-rate", "expected 0 to \(DecimalText.shortest(fastest)) Hz, got \(DecimalText.shortest(rate))")
            }
            access.activeSessionRate = rate
        }
        return access
    }

    private static func state(_ table: ConfigurationTable) throws(ConfigurationError) -> DaemonConfiguration.State {
        var state = DaemonConfiguration.State()
        if let path = try table.path("path") { state.path = path }
        if let interval = try table.number("save-interval") {
            guard interval > 0 else { throw table.error("save-interval", "expected a positive number of seconds, got \(DecimalText.shortest(interval))") }
            state.saveInterval = interval
        }
        return state
    }

    /// One `[[mount-matrix]]`: `device` (optional), `kind` and `matrix` in the kernel's text form.
    private static func mountMatrix(_ entry: ConfigurationTable) throws(ConfigurationError) -> MountMatrixOverride {
        let device = try entry.string("device", expected: "a device id, name or label")
        if device?.isEmpty == true { throw entry.error("device", "expected a device id, name or label, got an empty string") }
        guard let kind = try entry.choice("kind", among: SensorKind.allCases) else {
            throw entry.error("kind", "missing: which sensor the matrix is for (accelerometer, gyroscope or magnetometer)")
        }
        guard let text = try entry.string("matrix", expected: #"a matrix like "0, 1, 0; 1, 0, 0; 0, 0, -1""#) else {
            throw entry.error("matrix", #"missing: the matrix, like "0, 1, 0; 1, 0, 0; 0, 0, -1""#)
        }
        do {
            return MountMatrixOverride(device: device, kind: kind, matrix: try MountMatrix(parsing: text))
        } catch {
            throw entry.error("matrix", "\(error)")
        }
    }

    /// `declination` or `[location]`, which exclude each other. Ranges are checked here; whether
    /// the magnetic model covers the date is the engine's to say on the day it starts
    /// (``DaemonConfiguration/engineConfiguration(on:)``).
    private static func trueNorth(_ top: ConfigurationTable) throws(ConfigurationError) -> DeclinationSource? {
        let declination = try top.number("declination")
        let location = try top.table("location", known: ["latitude", "longitude", "altitude"])
        let source: DeclinationSource
        let key: String
        switch (declination, location) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw top.error("declination", "declination and [location] exclude each other: give one of them")
        case (let degrees?, nil):
            (source, key) = (.declination(degrees), "declination")
        case (nil, let location?):
            let latitude = try location.number("latitude")
            let longitude = try location.number("longitude")
            guard let latitude, let longitude else {
                throw location.error(latitude == nil ? "latitude" : "longitude", "missing: a location needs both latitude and longitude")
            }
            (source, key) = (.location(latitude: latitude, longitude: longitude, altitude: try location.number("altitude") ?? 0), "location")
        }
        do {
            _ = try source.declination(on: Date())
        } catch DeclinationSource.Problem.outOfRange(let why) {
            throw top.error(key, why)
        } catch {
            // Outside the model's dates: reported when the engine is configured.
        }
        return source
    }

    /// `[detectors]` over the shipped detectors: the detectors' own parameter names in
    /// kebab-case (`[detectors.shake] threshold`, `hard-acceleration`), applied one at a time
    /// through ``Overlay`` as a subscription's detector options are.
    private static func detectors(_ top: ConfigurationTable) throws(ConfigurationError) -> (DetectorConfiguration, ignored: [ConfigurationError]) {
        let defaults = DetectorConfiguration()
        guard let encoded = try? JSONEncoder().encode(defaults), case .object(let fields)? = try? JSONValue.parse(encoded) else {
            preconditionFailure("DetectorConfiguration encodes as a JSON object")
        }
        guard let table = try top.table("detectors", known: fields.keys.map(kebabCase)) else { return (defaults, []) }
        var detectors = defaults
        var ignored: [ConfigurationError] = []
        try overlay(table, fields: fields, path: [], onto: &detectors, ignored: &ignored)
        return (detectors, ignored)
    }

    /// Detector keys of earlier releases, under `[detectors]` in the file's spelling, and why
    /// they no longer apply: a file that still sets one is read (with a warning naming it), not
    /// refused, so an upgrade never leaves motiond unable to start.
    static let retiredDetectorKeys: [String: String] = [
        "orientation.upright-minimum-tilt": "no longer used since 0.19.0: upright orientations follow iio-sensor-proxy's rule (upright-threshold)",
        "orientation.propose-within": "no longer used since 0.19.0: upright orientations follow iio-sensor-proxy's rule (upright-threshold)",
        "orientation.keep-within": "no longer used since 0.19.0: upright orientations follow iio-sensor-proxy's rule (upright-threshold)",
    ]

    /// Applies the values `table` gives for `fields` (the defaults' JSON object at `path`), each
    /// checked against its range (``DetectorConfiguration/ranges``) as a client's options are;
    /// a retired key it holds is noted in `ignored`. Every detector parameter is a number (the
    /// tests set each one).
    private static func overlay(_ table: ConfigurationTable, fields: [String: JSONValue], path: [String],
                                onto detectors: inout DetectorConfiguration, ignored: inout [ConfigurationError]) throws(ConfigurationError) {
        for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
            let key = kebabCase(field)
            if case .object(let nested) = value {
                let prefix = (path + [field]).map(kebabCase).joined(separator: ".") + "."
                let retired = retiredDetectorKeys.filter { $0.key.hasPrefix(prefix) }
                    .map { (key: String($0.key.dropFirst(prefix.count)), reason: $0.value) }
                if let nestedTable = try table.table(key, known: nested.keys.map(kebabCase) + retired.map(\.key)) {
                    try overlay(nestedTable, fields: nested, path: path + [field], onto: &detectors, ignored: &ignored)
                    for old in retired.sorted(by: { $0.key < $1.key }) where nestedTable.contains(old.key) {
                        ignored.append(nestedTable.error(old.key, "\(old.reason); ignored"))
                    }
                }
                continue
            }
            guard let number = try table.number(key) else { continue }
            let object = path.reversed().reduce([field: JSONValue.number(number)]) { inner, key in [key: .object(inner)] }
            do {
                detectors = try detectors.overlaid(with: object)
            } catch {
                let prefix = (["detectors"] + path + [field]).joined(separator: ".") + ": "
                throw table.error(key, error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message)
            }
        }
    }

    /// The line (from 1) of the first byte that is not part of valid UTF-8.
    private static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int? {
        UTF8Text.firstInvalidByte(bytes).map { offset in 1 + bytes[..<offset].count(where: { $0 == 0x0A }) }
    }

    /// The first character TOML forbids (a control character other than tab, line feed and a
    /// carriage return before a line feed) and its line, from 1; nil when there is none.
    private static func forbiddenCharacter(in text: String) -> (line: Int, problem: String)? {
        var line = 1
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            switch scalar.value {
            case 0x0A:
                line += 1
            case 0x0D where next == scalars.endIndex || scalars[next] != "\n":
                return (line, "a carriage return without a line feed is not allowed in TOML")
            case 0x00...0x08, 0x0B...0x0C, 0x0E...0x1F, 0x7F:
                let code = String(scalar.value, radix: 16, uppercase: true)
                return (line, "control character U+\(String(repeating: "0", count: 4 - code.count) + code) is not allowed in TOML (not even in a comment or a string; write it as an escape in a string)")
            default:
                break
            }
            index = next
        }
        return nil
    }

    /// `highPassTau` → `high-pass-tau`.
    static func kebabCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "-" + character.lowercased() } else { result.append(character) }
        }
    }

    /// The bytes of `file`, or the errno that stopped reading them.
    private static func contents(of file: String) -> Result<[UInt8], SystemError> {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.last()) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return .success(bytes) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.last())
            }
            bytes += chunk[..<count]
        }
    }
}

/// A configuration file that cannot be used. Its description is the line to log:
/// `FILE:LINE: KEY: MESSAGE`, without the line or key when there is none (a missing file).
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// The line to edit, from 1.
    public var line: Int?
    /// The key path in the file's spelling: `socket.mode`, `mount-matrix[0].kind`.
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        ([file + (line.map { ":\($0)" } ?? "")] + (key.map { [$0] } ?? []) + [message]).joined(separator: ": ")
    }
}
