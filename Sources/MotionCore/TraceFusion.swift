/// Runs an ``AttitudeEstimator`` over a whole trace, exactly as the daemon feeds it: per row the
/// gyroscope, then the accelerometer, then the magnetometer, at the row's time.
public enum TraceFusion {
    /// One attitude per record (device → Z-up frame): 6D (arbitrary X) or 9D (X magnetic north).
    public static func attitudes(for records: [TraceRecord], magnetometer: Bool,
                                 parameters: AttitudeEstimatorParameters = AttitudeEstimatorParameters()) -> [Quaternion] {
        var estimator = AttitudeEstimator(parameters: parameters)
        var out: [Quaternion] = []
        out.reserveCapacity(records.count)
        for record in records {
            if let g = record.gyroscope { estimator.update(gyroscope: g, at: record.time) }
            if let a = record.accelerometer { estimator.update(accelerometer: a, at: record.time) }
            if magnetometer, let m = record.magnetometer { estimator.update(magnetometer: m, at: record.time) }
            out.append(magnetometer ? estimator.attitude9D : estimator.attitude6D)
        }
        return out
    }
}
