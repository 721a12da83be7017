/// Runs a ``MotionEngine`` over a whole trace, exactly as the daemon feeds it: per row the
/// gyroscope, then the accelerometer, then the magnetometer, at the row's time.
public enum TraceFusion {
    /// One attitude per record in `frame` (device → reference), nil while the engine warms up.
    /// The magnetometer is fed only for the frames that use it, so `xArbitraryZVertical` is the
    /// magnetometer-free 6D estimate.
    public static func attitudes(for records: [TraceRecord], frame: AttitudeReferenceFrame,
                                 configuration: MotionEngine.Configuration = MotionEngine.Configuration()) -> [Quaternion?] {
        var engine = MotionEngine(configuration: configuration)
        let magnetometer = frame != .xArbitraryZVertical
        var out: [Quaternion?] = []
        out.reserveCapacity(records.count)
        for record in records {
            if let g = record.gyroscope { engine.update(Sample(kind: .gyroscope, timestamp: record.time, vector: g)) }
            if let a = record.accelerometer { engine.update(Sample(kind: .accelerometer, timestamp: record.time, vector: a)) }
            if magnetometer, let m = record.magnetometer {
                engine.update(Sample(kind: .magnetometer, timestamp: record.time, vector: m))
            }
            out.append(try? engine.attitude(in: frame))
        }
        return out
    }
}
