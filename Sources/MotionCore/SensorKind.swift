/// The kinds of sensor motiond reads: the three motion sensors, and the ambient light and
/// proximity sensors a desktop needs beside them (auto-brightness, blanking during calls).
///
/// Units of a ``Sample`` of each kind (Core Motion conventions, device frame):
/// accelerometer in G with the gravity-vector sign (face up at rest reads z ≈ −1),
/// gyroscope in rad/s (right-hand rule), magnetometer in µT. The two scalar kinds carry their
/// value in `vector.x` (y and z are 0): light in lux, proximity as the sensor's reading
/// divided by its near level (1 is the level at which an object counts as near; see
/// ``ProximityDetector``).
public enum SensorKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case accelerometer
    case gyroscope
    case magnetometer
    case light
    case proximity
    /// A convertible's second accelerometer, in the base (keyboard half): read with the
    /// display's for the hinge angle, in the display's frame as the lid closed defines it.
    case baseAccelerometer
    /// A gyroscope in a convertible's base: with the display's, it carries the hinge angle
    /// through motion and while the machine stands on its side. Never fused into the attitude
    /// of the display (the base turns about the hinge without it).
    case baseGyroscope

    /// The three motion sensors, the ones the fusion reads.
    public static let motion: [SensorKind] = [.accelerometer, .gyroscope, .magnetometer]

    /// Whether this is one of the three motion sensors (three axes, read by the fusion), as
    /// opposed to a scalar light or proximity sensor.
    public var isMotion: Bool { axisCount == 3 }

    /// Whether this is an accelerometer, the display's or a convertible's base one.
    public var isAccelerometer: Bool { self == .accelerometer || self == .baseAccelerometer }

    /// Values per sample: 3 for the motion sensors, 1 for light and proximity.
    public var axisCount: Int {
        switch self {
        case .accelerometer, .gyroscope, .magnetometer, .baseAccelerometer, .baseGyroscope: return 3
        case .light, .proximity: return 1
        }
    }

    /// The IIO channel type that carries this kind (`in_<type>_x_raw`, `in_illuminance_raw`).
    public var iioChannelType: String {
        switch self {
        case .accelerometer, .baseAccelerometer: return "accel"
        case .gyroscope, .baseGyroscope: return "anglvel"
        case .magnetometer: return "magn"
        case .light: return "illuminance"
        case .proximity: return "proximity"
        }
    }

    /// The unit of a sample of this kind.
    public var unit: String {
        switch self {
        case .accelerometer, .baseAccelerometer: return "G"
        case .gyroscope, .baseGyroscope: return "rad/s"
        case .magnetometer: return "µT"
        case .light: return "lx"
        case .proximity: return "× near level"
        }
    }

    public var description: String { rawValue }

    // By case, not by the raw string: the standard library's defaults for a raw-valued enum
    // hash and compare its `rawValue` (a String, hashed byte by byte), and dictionaries keyed by
    // sensor kind are consulted several times for every sample.
    public static func == (a: SensorKind, b: SensorKind) -> Bool { a.ordinal == b.ordinal }
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    private var ordinal: UInt8 {
        switch self {
        case .accelerometer: return 0
        case .gyroscope: return 1
        case .magnetometer: return 2
        case .light: return 3
        case .proximity: return 4
        case .baseAccelerometer: return 5
        case .baseGyroscope: return 6
        }
    }
}
