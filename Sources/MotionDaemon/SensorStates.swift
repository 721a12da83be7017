import MotionCore
import MotionIIO
import MotionProtocol

/// What the pipeline knows of each sensor — the latest availability its source reported — and
/// what hello, `status` and the `availability` stream say of it (``SensorState``): read or
/// not and why, how often, at what rest interval, where it sits. Pure; lives on the pipeline
/// queue.
struct SensorStates: Sendable {
    /// The sensors the daemon may use at all (`--sensors`).
    let allowed: Set<SensorKind>
    /// The source's latest word on each sensor it has reported.
    private(set) var reported: [SensorKind: SensorAvailability] = [:]

    init(allowed: Set<SensorKind>) {
        self.allowed = allowed
    }

    /// Records what the source said of `kind`; true when the sensor became available or
    /// unavailable (not only a new reason).
    mutating func record(_ kind: SensorKind, _ availability: SensorAvailability) -> Bool {
        defer { reported[kind] = availability }
        return reported[kind]?.isAvailable != availability.isAvailable
    }

    /// What the log says of `kind` when the source reports `availability`: what clients are told
    /// (an excluded sensor is unavailable, whatever the source found).
    func logged(_ kind: SensorKind, _ availability: SensorAvailability) -> SensorAvailability {
        allowed.contains(kind) ? availability : SensorAvailability(isAvailable: false, reason: Self.excluded)
    }

    /// Why a sensor `--sensors` leaves out is unavailable.
    static let excluded = "not used: excluded by --sensors"

    /// Whether `kind` is being read and may be used.
    func isUsable(_ kind: SensorKind) -> Bool {
        reported[kind]?.isAvailable == true && allowed.contains(kind)
    }

    /// The sensors the source has reported on, in ``SensorKind`` order.
    var known: [SensorKind] {
        SensorKind.allCases.filter { reported[$0] != nil }
    }

    /// What clients are told of `kind` while the source reads what `request` asks.
    func state(_ kind: SensorKind, reading request: SourceRequest) -> SensorState {
        guard let availability = reported[kind] else {
            return SensorState(available: false, reason: "not discovered yet")
        }
        guard allowed.contains(kind) else {
            return SensorState(available: false, reason: Self.excluded)
        }
        // Light and proximity run at their wake interval all the time: that is their period. A
        // buffered motion sensor delivers at its device's frequency, which the source knows.
        let period = kind.isMotion ? availability.period ?? request.periods[kind] : request.wakeInterval(kind)
        return SensorState(available: availability.isAvailable, reason: availability.reason, mode: availability.mode?.rawValue,
                           period: availability.isAvailable ? period : nil,
                           restInterval: availability.isAvailable && kind.isMotion ? request.wakeIntervals[kind] : nil,
                           location: availability.isAvailable ? availability.location : nil,
                           unit: availability.isAvailable ? availability.unit : nil,
                           specificForce: availability.isAvailable && kind.isAccelerometer && availability.specificForce)
    }

    /// Every sensor's state.
    func all(reading request: SourceRequest) -> [SensorKind: SensorState] {
        Dictionary(uniqueKeysWithValues: SensorKind.allCases.map { ($0, state($0, reading: request)) })
    }

    /// The sensors worth saying are missing: a motion sensor the source found unavailable, or
    /// any other that is asked for and unavailable. A laptop without a proximity sensor (or a
    /// base accelerometer: it is no convertible) is not missing anything until someone asks.
    func missing(reading request: SourceRequest) -> [SensorKind] {
        SensorKind.allCases.filter { kind in
            reported[kind]?.isAvailable == false && (SensorKind.motion.contains(kind) || request.periods[kind] != nil)
        }
    }
}
