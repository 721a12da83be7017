/// One motion event an accelerometer offers in its sysfs `events/` directory (the IIO events
/// ABI), with the attributes that configure it.
///
/// The kernel names every event attribute `in_accel[_<axes>]_<kind>_<direction>_<info>`: `en`
/// switches the event on, `value` is the threshold in raw units, `period` how long (seconds, by
/// the ABI) the condition must hold, `timeout` and `hysteresis` refine it. Each info attribute
/// is either per axis (`in_accel_x_thresh_either_value`) or shared by the type
/// (`in_accel_mag_rising_value`); a driver whose thresholds do not count in the channel's units
/// gives their scale as `events/in_accel_scale`. What real drivers expose:
///
/// | driver | enable | value, period |
/// |---|---|---|
/// | mma8452 (MMA845x, FXLS8471Q) | `in_accel_{x,y,z}_mag_rising_en` (transient) | shared, scale `events/in_accel_scale` = 0.617742 |
/// | kxcjk-1013 (KXCJ9, KXTJ2…) | `in_accel_{x,y,z}_thresh_either_en` (wake-up) | per axis |
/// | st_lsm6dsx | `in_accel_{x,y,z}_thresh_either_en` (wake-up) | per axis, no period |
/// | bmc150-accel | `in_accel_{x,y,z}_roc_either_en` (slope) | per axis |
/// | adxl372, adxl367 | `in_accel_x&y&z_thresh_rising_en`, `…_mag_referenced_rising_en` | per composite channel |
///
/// Falling directions (free fall, inactivity) are not motion and are not offered here.
public struct MotionEventOffer: Sendable, Hashable, CustomStringConvertible {
    /// What the hardware compares with the threshold; the `iio_event_type` of the kernel.
    /// Cases are in the order motiond prefers them for waking up: relative to rest first.
    public enum Kind: String, Sendable, CaseIterable {
        /// Magnitude relative to a reference taken at rest (5.18+; adxl367, bma400).
        case referencedMagnitude = "mag_referenced"
        /// Rate of change, the "slope" or any-motion engines (bmc150-accel).
        case rateOfChange = "roc"
        /// Magnitude, usually high-pass filtered ("transient", mma8452).
        case magnitude = "mag"
        /// The signed value; the wake-up engines of kxcjk-1013 and st_lsm6dsx filter out
        /// gravity themselves.
        case threshold = "thresh"
        /// Magnitude against an adaptive (tracking) reference.
        case adaptiveMagnitude = "mag_adaptive"

        /// The kernel's `enum iio_event_type` value, as event records carry it.
        public var code: Int {
            switch self {
            case .threshold: return 0
            case .magnitude: return 1
            case .rateOfChange: return 2
            case .adaptiveMagnitude: return 4
            case .referencedMagnitude: return 6
            }
        }
    }

    /// The direction of the crossing; the `iio_event_direction` of the kernel.
    public enum Direction: String, Sendable, CaseIterable {
        case rising
        case either

        /// The kernel's `enum iio_event_direction` value.
        public var code: Int { self == .either ? 0 : 1 }
    }

    public var kind: Kind
    public var direction: Direction
    /// The axes part of the name: `x`, `y`, `z`, `x&y&z`, `x|y|z`, or empty for an event of
    /// the whole channel type.
    public var axes: String
    /// The file names under `events/`; `enable` always exists, the others when offered.
    public var enable: String
    public var value: String?
    public var period: String?
    public var timeout: String?
    public var hysteresis: String?
    /// m/s² per unit of `value`, and the attribute it came from (`events/in_accel_scale`, else
    /// the channel's scale); `nil` when the device gives none.
    public var scale: Double?
    public var scaleSource: String?

    public var description: String { "events/\(enable)" }

    /// The names the kernel gives the axis modifiers (`iio_modifier_names`), single and combined.
    static let axisNames = ["x", "y", "z", "x&y", "x&z", "y&z", "x&y&z", "x|y", "x|z", "y|z", "x|y|z"]

    /// Parses an `events/` file name ending in `_en` into kind, direction and axes; `nil` for
    /// anything else (other channel types, falling directions, other kinds).
    static func parse(enable name: String) -> (kind: Kind, direction: Direction, axes: String)? {
        let prefix = "in_accel"
        guard name.hasPrefix(prefix), name.hasSuffix("_en") else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(3)
        for kind in Kind.allCases {
            for direction in Direction.allCases {
                let tail = "_\(kind.rawValue)_\(direction.rawValue)"
                guard middle.hasSuffix(tail) else { continue }
                let axes = String(middle.dropLast(tail.count))
                if axes.isEmpty { return (kind, direction, "") }
                guard axes.hasPrefix("_"), axisNames.contains(String(axes.dropFirst())) else { continue }
                return (kind, direction, String(axes.dropFirst()))
            }
        }
        return nil
    }

    /// Every motion event offered in `files` (the names in `events/`), its info attributes
    /// looked up per axis first, then shared by type; the scale is left to the caller.
    static func offers(in files: [String]) -> [MotionEventOffer] {
        let present = Set(files)
        return files.compactMap { name -> MotionEventOffer? in
            guard let (kind, direction, axes) = parse(enable: name) else { return nil }
            func info(_ suffix: String) -> String? {
                let event = "\(kind.rawValue)_\(direction.rawValue)_\(suffix)"
                return [axes.isEmpty ? nil : "in_accel_\(axes)_\(event)", "in_accel_\(event)"]
                    .compactMap { $0 }.first(where: present.contains)
            }
            return MotionEventOffer(kind: kind, direction: direction, axes: axes, enable: name, value: info("value"),
                                    period: info("period"), timeout: info("timeout"), hysteresis: info("hysteresis"))
        }
    }
}
