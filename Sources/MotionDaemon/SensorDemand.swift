import MotionCore
import MotionIIO
import MotionProtocol

/// Which sensors the subscriptions need and at what period: the hardware runs each sensor at
/// the shortest interval any user wants, clamped to the supported 10–100 ms, and a sensor
/// nothing needs is not read at all.
///
/// The rest rate: while the device lies still (``RestRate``), its motion sensors are read only
/// every rest interval if every subscription tolerates that (``toleratesRestRate(_:for:)``);
/// the first reading that moves brings the full rate back.
enum SensorDemand {
    /// Whether a stream's subscribers are served as well by readings a rest interval apart
    /// while the device lies still. Orientation and shake: nothing happens at rest, and the
    /// reading that shows motion (at most a rest interval late) brings the full rate back
    /// before anything is decided; availability and calibration read no sensor. Every other
    /// stream keeps its rate, always: samples a client asked for at 100 Hz come at 100 Hz, and
    /// a gesture (a tap lasts ~30 ms) would be missed between readings. A convertible's posture
    /// too: a fold moves one half or both, and the reading that shows it brings the full rate
    /// back (the tablet-mode switch reads it on every convertible, all the time).
    static func toleratesRestRate(_ stream: StreamName) -> Bool {
        switch stream {
        case .orientation, .tilt, .shake, .posture, .availability, .calibration: return true
        // Read at their own slow pace, from sensors of their own.
        case .light, .proximity: return true
        case .accelerometer, .gyro, .magnetometer, .deviceMotion, .heading, .gesture, .baseAccelerometer, .baseGyro, .hinge: return false
        }
    }

    /// Whether `recipient`'s subscription to `stream` tolerates the rest rate: as the stream
    /// (``toleratesRestRate(_:)``), and the heading for the D-Bus face. Its `CompassHeading` is
    /// a property that changes, with no rate promised, and a still device's heading does not
    /// change: the accelerometer, gyroscope and magnetometer then rest together, the gyroscope's
    /// first reading that turns (a laptop turned flat on a table) ends the rest
    /// (``RestRate/deciding``), and of a still buffered batch the newest scan is fused
    /// (``RestRate/worthHandling(_:resting:)``).
    static func toleratesRestRate(_ stream: StreamName, for recipient: Recipient) -> Bool {
        toleratesRestRate(stream) || (stream == .heading && recipient == .local(.sensorProxy))
    }

    /// `request` with each sensor's readings allowed to come as late as every subscription
    /// reading it lets them (the shortest of their latencies; a subscription without one
    /// wants them at once): a source that keeps every reading may then batch them.
    static func batching(_ request: SourceRequest, _ latencies: some Sequence<(kinds: Set<SensorKind>, latency: Double)>) -> SourceRequest {
        var shortest: [SensorKind: Double] = [:]
        for need in latencies {
            for kind in need.kinds { shortest[kind] = min(shortest[kind] ?? .infinity, need.latency) }
        }
        var batching = request
        batching.latencies = shortest.filter { $0.value > 0 }
        return batching
    }

    /// `request` at rest: the accelerometer (and the gyroscope and magnetometer of a resting
    /// heading) delivered every `interval` seconds and a convertible's base accelerometer every
    /// ``baseRestMultiple`` intervals, when they are the only motion sensors read (a
    /// subscription that tolerates the rest rate needs no other; light and proximity keep
    /// their own pace).
    static func resting(_ request: SourceRequest, interval: Double) -> SourceRequest {
        let motion = Set(request.periods.keys.filter(\.isMotion))
        guard interval > 0, motion.contains(.accelerometer), motion.isSubset(of: restingKinds) else { return request }
        var resting = request
        // The base's in whole milliseconds (0.35 × 3 is 1.0499999999999998 in binary).
        let base = (interval * baseRestMultiple * 1000).rounded() / 1000
        for kind in motion { resting.wakeIntervals[kind] = kind == .baseAccelerometer ? base : interval }
        return resting
    }

    /// How many rest intervals apart a resting convertible's base accelerometer is read. The base
    /// lies on a table or a lap: what changes the posture moves the display (a fold turns the
    /// lid; lifting the machine moves both), and the display's first reading that moves ends
    /// the rest for both. Only the base moving under a display held still is seen later (up
    /// to three intervals). The machine then wakes a third more often than a slate, not twice.
    static let baseRestMultiple = 3.0

    /// The sensors that carry a convertible's hinge angle through motion and while it stands on
    /// its side: read for `hinge` subscriptions (at their interval) when the machine has both,
    /// as one alone adds nothing to the angle. `posture` never reads them: it serves the
    /// tablet-mode switch all the time, and the accelerometers alone decide it at rest.
    static let hingeGyroscopes: Set<SensorKind> = [.gyroscope, .baseGyroscope]

    /// The sensors that may rest: the display's and the base's accelerometers, and the
    /// gyroscope and magnetometer of the D-Bus face's heading.
    static let restingKinds: Set<SensorKind> = [.accelerometer, .baseAccelerometer, .gyroscope, .magnetometer]

    /// The sensors a stream needs (``StreamName/sensors(frame:)``).
    static func kinds(for stream: StreamName, frame: AttitudeReferenceFrame?) -> Set<SensorKind> {
        stream.sensors(frame: frame)
    }

    /// The hardware period for an interval: the interval clamped to what sensors support.
    static func period(for interval: Double) -> Double {
        min(max(interval, Wire.hardwarePeriods.lowerBound), Wire.hardwarePeriods.upperBound)
    }

    /// The request that serves `needs` (each a set of sensors and the interval wanted), read only
    /// from the `allowed` sensors. A light or proximity sensor runs at the slowest hardware
    /// period and is read as often as its most eager subscription wants (its wake interval),
    /// at most 10 times a second: neither changes faster than that matters.
    static func request(_ needs: some Sequence<(kinds: Set<SensorKind>, interval: Double)>, allowed: Set<SensorKind>) -> SourceRequest {
        var periods: [SensorKind: Double] = [:]
        var slow: [SensorKind: Double] = [:]
        for need in needs {
            for kind in need.kinds where allowed.contains(kind) {
                if kind.isMotion {
                    periods[kind] = min(periods[kind] ?? .infinity, period(for: need.interval))
                } else {
                    periods[kind] = Wire.hardwarePeriods.upperBound
                    slow[kind] = min(slow[kind] ?? .infinity, need.interval)
                }
            }
        }
        // Every period is clamped into the supported range above, so this cannot throw.
        var request = (try? SourceRequest(periods)) ?? .none
        request.wakeIntervals = slow
        return request
    }
}
