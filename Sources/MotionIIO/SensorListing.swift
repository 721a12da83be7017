import FoundationEssentials
import MotionCore

/// The report of `motiond --list-sensors`: what a source offers and, for IIO, every sensor
/// found with how it will be read, plus what was skipped and why. Encodes as JSON; renders as
/// text for people.
public struct SensorListing: Sendable, Codable {
    public var source: String
    /// The sensor used for each kind (device id), or the source itself for sim:/replay:.
    public var selected: [String: String]
    public var sensors: [SensorDescriptor]
    public var skipped: [SkippedSensor]
    /// For sources without IIO devices: what they provide.
    public var provides: [SensorKind]?
    /// Whether a convertible's hinge angle can be measured (a display and a base
    /// accelerometer), from which devices (and gyroscopes, when both halves have one) or why not.
    public var hinge: String
    /// The input and hwmon sensors found, for `local:`.
    public var platformSensors: [PlatformEntry]?

    public init(source: String, result: SensorDiscovery.Result) {
        self.source = source
        sensors = result.sensors
        skipped = result.skipped
        var selected: [String: String] = [:]
        for kind in SensorKind.allCases {
            if let sensor = result.primary(kind) { selected[kind.rawValue] = sensor.device }
        }
        self.selected = selected
        provides = nil
        hinge = Self.hinge(selected)
    }

    public init(source: String, provides kinds: [SensorKind]) {
        self.source = source
        selected = Dictionary(uniqueKeysWithValues: kinds.map { ($0.rawValue, source) })
        sensors = []
        skipped = []
        provides = kinds
        hinge = Self.hinge(selected)
    }

    /// The hinge line: measurable from the two accelerometers selected, or what is missing.
    static func hinge(_ selected: [String: String]) -> String {
        guard let display = selected[SensorKind.accelerometer.rawValue] else { return "not measurable: no accelerometer" }
        guard let base = selected[SensorKind.baseAccelerometer.rawValue] else {
            return "not measurable: no base accelerometer (one in a convertible's base says so by its label accel-base, its location base, or udev's ACCEL_LOCATION=base)"
        }
        var line = "measurable: display accelerometer \(display), base accelerometer \(base)"
        if let gyroscope = selected[SensorKind.gyroscope.rawValue], let baseGyroscope = selected[SensorKind.baseGyroscope.rawValue] {
            line += "; carried through motion by the gyroscopes \(gyroscope) and \(baseGyroscope)"
        }
        return line
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    public func text() -> String {
        var out = "source \(source)\n"
        if let provides {
            out += "  provides \(provides.map(\.rawValue).joined(separator: ", "))\n"
        }
        if sensors.isEmpty && provides == nil && (platformSensors ?? []).isEmpty {
            out += "  no accelerometer, gyroscope, magnetometer, light or proximity sensor found\n"
        }
        out += "  hinge angle  \(hinge)\n"
        for sensor in sensors {
            let used = selected[sensor.kind.rawValue] == sensor.device
            let role = used ? "used" : "not used"
            out += "\n\(sensor.kind) — \(sensor.device) \(sensor.driver)\(sensor.label.map { " (label \($0))" } ?? "") [\(role)]\n"
            out += "  location     \(sensor.location) (\(sensor.locationSource))\n"
            out += "  channels     \(sensor.axes.map(\.channel).joined(separator: " "))"
            if let type = sensor.axes.first?.scanType { out += "  scan \(type)" }
            out += "\n"
            let c = sensor.conversion
            if let near = sensor.nearLevel {
                out += "  near level   \(SysfsNumber.format(near.value)) from \(near.source) (readings are divided by it)\n"
            } else if sensor.axes.allSatisfy({ $0.valueAttribute == "input" }) {
                out += "  value        \(sensor.axes.map { "\($0.channel)_input" }.joined(separator: " ")) (processed, \(sensor.kind.unit))\n"
            } else {
                out += "  scale        \(sensor.axisValues(c.scale)) from \(Self.sources(sensor.axes.map(\.scaleAttribute), none: "no scale attribute (1)"))\n"
                out += "  offset       \(sensor.axisValues(c.offset)) from \(Self.sources(sensor.axes.map(\.offsetAttribute), none: "no offset attribute (0)"))\n"
            }
            if sensor.kind.isMotion {
                out += "  mount matrix \(c.mountMatrix) from \(sensor.mountMatrix.source)"
                if sensor.mountMatrix.correctedImproper { out += " (improper '\(sensor.mountMatrix.given)', z row negated)" }
                if sensor.mountMatrix.specificForce {
                    out += sensor.kind.isAccelerometer
                        ? " (given '\(sensor.mountMatrix.given)'; specific force: x and y as given, z for the gravity vector)"
                        : " (given '\(sensor.mountMatrix.given)'; a specific-force chip's: the given negated, made proper)"
                }
                out += "\n"
                for note in sensor.mountMatrix.notes { out += "               note: \(note)\n" }
            }
            if let f = sensor.samplingFrequency {
                out += "  frequency    \(f.current.map { SysfsNumber.format($0) + " Hz" } ?? "unreadable") (\(f.attribute))"
                if let available = f.available { out += ", available \(available)" }
                out += "\n"
            }
            out += "  read mode    \(sensor.readMode): \(sensor.readModeReason)\n"
        }
        for entry in platformSensors ?? [] {
            out += "\n\(entry.summary) [\(selected[entry.kind.rawValue] == entry.device ? "used" : "not used")]\n"
        }
        for skip in skipped { out += "\n\(skip)\n" }
        return out
    }

    private static func sources(_ attributes: [String?], none: String) -> String {
        let unique = attributes.reduce(into: [String]()) { list, name in
            let text = name ?? none
            if !list.contains(text) { list.append(text) }
        }
        return unique.joined(separator: ", ")
    }
}
