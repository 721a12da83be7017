/// Every event detector's parameters in one place: what the daemon's configuration file exposes
/// and `motionctl analyze` tunes. Defaults are what the daemon ships (documented on each
/// detector's `Parameters` and in docs/EVENTS.md).
///
/// Each parameter has a valid range (``ranges``, the table in docs/EVENTS.md): the configuration
/// file and a subscription's `detectors` options are both checked against it with
/// ``problem``, so neither can set a negative threshold, a zero time constant or a count of
/// -9e18 reversals.
public struct DetectorConfiguration: Sendable, Hashable, Codable {
    public var orientation = OrientationDetector.Parameters()
    public var shake = ShakeDetector.Parameters()
    public var slap = SlapDetector.Parameters()
    public var tap = TapDetector.Parameters()
    public var posture = PostureDetector.Parameters()
    /// User acceleration above this (G) counts as "accelerating hard": no orientation decision.
    public var hardAcceleration = 0.5
    /// Without a gyroscope: |a| off 1 G by more than this (G) counts as accelerating (1 G as the
    /// accelerometer reads it at rest, ``GravityScale``).
    public var accelerationTolerance = 0.4

    public init() {}

    /// The values one parameter may take: from `lower` (included or not) to `upper` (included),
    /// in `unit`; whole numbers only for an integer parameter.
    public struct Range: Sendable {
        /// The key path, as the protocol spells it: `shake.threshold`, `hardAcceleration`.
        public var path: String
        public var lower: Double
        public var lowerIncluded: Bool
        public var upper: Double
        /// `G`, `s`, `°`, `rad/s`, or empty for a count.
        public var unit: String
        let value: @Sendable (DetectorConfiguration) -> Double

        /// Whether `value` is in the range (never for NaN).
        public func contains(_ value: Double) -> Bool {
            (lowerIncluded ? value >= lower : value > lower) && value <= upper
        }

        /// `more than 0 and at most 16 G`, `1 to 100`.
        public var text: String {
            let unit = unit.isEmpty || unit == "°" ? unit : " " + unit
            if lowerIncluded { return "\(DecimalText.shortest(lower)) to \(DecimalText.shortest(upper))\(unit)" }
            return "more than \(DecimalText.shortest(lower)) and at most \(DecimalText.shortest(upper))\(unit)"
        }
    }

    /// The largest acceleration any threshold may be, G: the widest range of the accelerometers
    /// laptops, tablets and boards carry (±16 G).
    public static let maximumAcceleration = 16.0
    /// The longest any detector time may be, s (a shake's whole duration excepted).
    public static let maximumTime = 10.0

    /// Every parameter's valid values. Thresholds are positive accelerations up to
    /// ``maximumAcceleration``; time constants and windows positive times up to ``maximumTime``,
    /// waits (settle, refractory, double-tap window) may be 0; angles are degrees between the
    /// screen normal and vertical (0–90) or of gravity along a screen axis (more than 0 to 90). A
    /// convertible's posture thresholds are hinge angles, each in a quarter of its own, so they
    /// keep their order whatever is set (closed up to at most 90°, flat from 90–180° to
    /// 180–270°, tablet from 270–360°).
    public static let ranges: [Range] = [
        Range(path: "hardAcceleration", lower: 0, lowerIncluded: false, upper: maximumAcceleration, unit: "G") { $0.hardAcceleration },
        Range(path: "accelerationTolerance", lower: 0, lowerIncluded: false, upper: maximumAcceleration, unit: "G") { $0.accelerationTolerance },
        Range(path: "orientation.flatEnter", lower: 0, lowerIncluded: true, upper: 90, unit: "°") { $0.orientation.flatEnter },
        Range(path: "orientation.flatExit", lower: 0, lowerIncluded: true, upper: 90, unit: "°") { $0.orientation.flatExit },
        Range(path: "orientation.uprightThreshold", lower: 0, lowerIncluded: false, upper: 90, unit: "°") { $0.orientation.uprightThreshold },
        Range(path: "orientation.settleTime", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.orientation.settleTime },
        Range(path: "orientation.stillTime", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.orientation.stillTime },
        Range(path: "orientation.stillTolerance", lower: 0, lowerIncluded: false, upper: 1, unit: "G") { $0.orientation.stillTolerance },
        Range(path: "orientation.maximumRotationRate", lower: 0, lowerIncluded: false, upper: 50, unit: "rad/s") { $0.orientation.maximumRotationRate },
        Range(path: "shake.threshold", lower: 0, lowerIncluded: false, upper: maximumAcceleration, unit: "G") { $0.shake.threshold },
        Range(path: "shake.reversalWindow", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.shake.reversalWindow },
        Range(path: "shake.requiredReversals", lower: 1, lowerIncluded: true, upper: 100, unit: "") { Double($0.shake.requiredReversals) },
        Range(path: "shake.quietTime", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.shake.quietTime },
        Range(path: "shake.maximumDuration", lower: 0, lowerIncluded: false, upper: 60, unit: "s") { $0.shake.maximumDuration },
        Range(path: "slap.highPassTau", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.slap.highPassTau },
        Range(path: "slap.threshold", lower: 0, lowerIncluded: false, upper: maximumAcceleration, unit: "G") { $0.slap.threshold },
        Range(path: "slap.settleTime", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.slap.settleTime },
        Range(path: "slap.refractoryTime", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.slap.refractoryTime },
        Range(path: "tap.highPassTau", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.tap.highPassTau },
        Range(path: "tap.threshold", lower: 0, lowerIncluded: false, upper: maximumAcceleration, unit: "G") { $0.tap.threshold },
        Range(path: "tap.ringTime", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.tap.ringTime },
        Range(path: "tap.maximumDuration", lower: 0, lowerIncluded: false, upper: maximumTime, unit: "s") { $0.tap.maximumDuration },
        Range(path: "tap.doubleTapWindow", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.tap.doubleTapWindow },
        Range(path: "posture.closedBelow", lower: 0, lowerIncluded: true, upper: 90, unit: "°") { $0.posture.closedBelow },
        Range(path: "posture.flatFrom", lower: 90, lowerIncluded: true, upper: 180, unit: "°") { $0.posture.flatFrom },
        Range(path: "posture.flatTo", lower: 180, lowerIncluded: true, upper: 270, unit: "°") { $0.posture.flatTo },
        Range(path: "posture.tabletFrom", lower: 270, lowerIncluded: true, upper: 360, unit: "°") { $0.posture.tabletFrom },
        Range(path: "posture.hysteresis", lower: 0, lowerIncluded: true, upper: 30, unit: "°") { $0.posture.hysteresis },
        Range(path: "posture.uprightShare", lower: 0, lowerIncluded: false, upper: 1, unit: "G") { $0.posture.uprightShare },
        Range(path: "posture.settleTime", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.posture.settleTime },
        Range(path: "posture.movingSettleTime", lower: 0, lowerIncluded: true, upper: maximumTime, unit: "s") { $0.posture.movingSettleTime },
    ]

    /// A parameter outside its range.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The key path, as the protocol spells it (`shake.requiredReversals`).
        public var path: String
        /// What is wrong with it: `expected 1 to 100, got -9e+18`.
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// The first parameter (in ``ranges`` order) outside its range; nil when all are valid.
    public var problem: Problem? {
        for range in Self.ranges {
            let value = range.value(self)
            if !range.contains(value) {
                return Problem(path: range.path, message: "expected \(range.text), got \(DecimalText.shortest(value))")
            }
        }
        return nil
    }
}
