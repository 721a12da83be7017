import MotionCore
import MotionIIO
import MotionProtocol

/// Which sensors the subscriptions need and at what period: the hardware runs each sensor at
/// the shortest interval any user wants, clamped to the supported 10–100 ms, and a sensor
/// nothing needs is not read at all (R69).
enum SensorDemand {
    /// The sensors a stream needs (``StreamName/sensors(frame:)``).
    static func kinds(for stream: StreamName, frame: AttitudeReferenceFrame?) -> Set<SensorKind> {
        stream.sensors(frame: frame)
    }

    /// The hardware period for an interval: the interval clamped to what sensors support.
    static func period(for interval: Double) -> Double {
        min(max(interval, Wire.hardwarePeriods.lowerBound), Wire.hardwarePeriods.upperBound)
    }

    /// The request that serves `needs` (each a set of sensors and the interval wanted), read only
    /// from the `allowed` sensors.
    static func request(_ needs: some Sequence<(kinds: Set<SensorKind>, interval: Double)>, allowed: Set<SensorKind>) -> SourceRequest {
        var periods: [SensorKind: Double] = [:]
        for need in needs {
            for kind in need.kinds where allowed.contains(kind) {
                periods[kind] = min(periods[kind] ?? .infinity, period(for: need.interval))
            }
        }
        // Every period is clamped into the supported range above, so this cannot throw.
        return (try? SourceRequest(periods)) ?? .none
    }
}
