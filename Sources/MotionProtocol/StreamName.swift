import MotionCore

/// The streams a client can subscribe to. Wire names are the case names.
///
/// Sample streams (`accelerometer`, `gyro`, `magnetometer`, `deviceMotion`, `heading`, `light`,
/// `baseAccelerometer`, `baseGyro`, `hinge`)
/// carry values at an update interval; a newer value supersedes an older one, so a client that
/// falls behind loses the oldest (counted and reported). Event streams (`orientation`, `tilt`,
/// `shake`, `gesture`, `proximity`, `posture`) and status streams (`availability`, `calibration`) carry
/// changes of state, which are never dropped silently.
public enum StreamName: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case accelerometer
    case gyro
    case magnetometer
    case deviceMotion
    case heading
    case orientation
    /// How far the screen faces up or down (``DeviceTilt``), on change.
    case tilt
    case shake
    case gesture
    /// Ambient light in lux, at an update interval.
    case light
    /// Whether something is near the proximity sensor (``Proximity``), on change.
    case proximity
    /// A convertible's base accelerometer, as it reads (the display's frame with the lid closed).
    case baseAccelerometer
    /// A convertible's base gyroscope, as it reads (rad/s, the display's frame with the lid closed).
    case baseGyro
    /// A convertible's hinge angle (``HingeAngle``), at an update interval.
    case hinge
    /// A convertible's posture (``Posture``), on change.
    case posture
    case availability
    case calibration

    /// The stream of a sensor's samples: its raw stream, or `proximity`, whose readings become
    /// near/far changes.
    public init(_ kind: SensorKind) {
        switch kind {
        case .accelerometer: self = .accelerometer
        case .gyroscope: self = .gyro
        case .magnetometer: self = .magnetometer
        case .light: self = .light
        case .proximity: self = .proximity
        case .baseAccelerometer: self = .baseAccelerometer
        case .baseGyroscope: self = .baseGyro
        }
    }

    /// The sensor whose samples this stream carries as they are, for the raw streams (the
    /// three motion sensors, light and a convertible's base accelerometer and gyroscope).
    public var sensorKind: SensorKind? {
        switch self {
        case .accelerometer: return .accelerometer
        case .gyro: return .gyroscope
        case .magnetometer: return .magnetometer
        case .light: return .light
        case .baseAccelerometer: return .baseAccelerometer
        case .baseGyro: return .baseGyroscope
        default: return nil
        }
    }

    /// The sensors the stream needs: raw streams (and `proximity`) their sensor, device motion the accelerometer
    /// and gyroscope plus the magnetometer for every frame but `xArbitraryZVertical` (the
    /// default), headings all three, the detectors the accelerometer, a convertible's hinge and
    /// posture both accelerometers (the daemon adds both gyroscopes to the hinge's when the
    /// machine has the pair); the status streams none.
    public func sensors(frame: AttitudeReferenceFrame? = nil) -> Set<SensorKind> {
        switch self {
        case .accelerometer, .gyro, .magnetometer, .light, .baseAccelerometer, .baseGyro:
            return [sensorKind!]
        case .proximity:
            return [.proximity]
        case .deviceMotion:
            return (frame ?? .xArbitraryZVertical) == .xArbitraryZVertical
                ? [.accelerometer, .gyroscope] : [.accelerometer, .gyroscope, .magnetometer]
        case .heading:
            return [.accelerometer, .gyroscope, .magnetometer]
        case .orientation, .tilt, .shake, .gesture:
            return [.accelerometer]
        case .hinge, .posture:
            return [.accelerometer, .baseAccelerometer]
        case .availability, .calibration:
            return []
        }
    }

    /// Whether values come at an update interval (and the oldest may be dropped for a slow
    /// reader) rather than as changes of state.
    public var isSampleStream: Bool {
        switch self {
        case .accelerometer, .gyro, .magnetometer, .deviceMotion, .heading, .light, .baseAccelerometer, .baseGyro, .hinge: return true
        case .orientation, .tilt, .shake, .gesture, .proximity, .posture, .availability, .calibration: return false
        }
    }

    /// The sample streams (``isSampleStream``) in declaration order: the streams a subscription
    /// may batch with a `latency`.
    public static let sampleStreams = allCases.filter(\.isSampleStream)

    /// Whether `get` can return a latest value (events like a shake have none; availability
    /// of every sensor is in `status`).
    public var isPullable: Bool {
        switch self {
        case .shake, .gesture, .availability: return false
        default: return true
        }
    }

    /// The shortest interval a subscription is granted: light and proximity sensors are read
    /// at most 10 times a second (the slowest hardware period: neither changes faster than
    /// that matters), the others ``Wire/minimumInterval``.
    public var minimumInterval: Double {
        switch self {
        case .light, .proximity: return Wire.hardwarePeriods.upperBound
        default: return Wire.minimumInterval
        }
    }

    /// Event streams come from the detectors and accept detector options.
    public var isDetectorStream: Bool {
        self == .orientation || self == .tilt || self == .shake || self == .gesture || self == .posture
    }

    public var description: String { rawValue }

    // By case, not by the raw string (as ``SensorKind``): streams key the publisher's tables,
    // consulted for every sample.
    public static func == (a: StreamName, b: StreamName) -> Bool { a.ordinal == b.ordinal }
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    private var ordinal: UInt8 {
        switch self {
        case .accelerometer: return 0
        case .gyro: return 1
        case .magnetometer: return 2
        case .deviceMotion: return 3
        case .heading: return 4
        case .orientation: return 5
        case .tilt: return 6
        case .shake: return 7
        case .gesture: return 8
        case .light: return 9
        case .proximity: return 10
        case .baseAccelerometer: return 11
        case .baseGyro: return 12
        case .hinge: return 13
        case .posture: return 14
        case .availability: return 15
        case .calibration: return 16
        }
    }
}
