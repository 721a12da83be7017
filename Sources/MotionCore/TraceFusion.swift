/// Runs a ``MotionEngine`` over a whole trace, exactly as the daemon feeds it: per row the
/// gyroscope, then the accelerometer, then the magnetometer, at the row's time.
public enum TraceFusion {
    /// What the engine gives after one record.
    public struct Output: Sendable, Hashable {
        /// The attitude in the frame asked for (device → reference), nil while the engine warms up.
        public var attitude: Quaternion?
        /// The magnetometer calibration's accuracy as the engine reports it.
        public var calibrationAccuracy: MagneticFieldCalibrationAccuracy
    }

    /// One attitude per record in `frame` (device → reference), nil while the engine warms up.
    /// The magnetometer is fed only for the frames that use it, so `xArbitraryZVertical` is the
    /// magnetometer-free 6D estimate.
    public static func attitudes(for records: [TraceRecord], frame: AttitudeReferenceFrame,
                                 configuration: MotionEngine.Configuration = MotionEngine.Configuration()) -> [Quaternion?] {
        outputs(for: records, frame: frame, configuration: configuration).map(\.attitude)
    }

    /// One ``Output`` per record, fed as ``attitudes(for:frame:configuration:)`` feeds them.
    public static func outputs(for records: [TraceRecord], frame: AttitudeReferenceFrame,
                               configuration: MotionEngine.Configuration = MotionEngine.Configuration()) -> [Output] {
        var engine = MotionEngine(configuration: configuration)
        let magnetometer = frame != .xArbitraryZVertical
        var out: [Output] = []
        out.reserveCapacity(records.count)
        for record in records {
            if let g = record.gyroscope { engine.update(Sample(kind: .gyroscope, timestamp: record.time, vector: g)) }
            if let a = record.accelerometer { engine.update(Sample(kind: .accelerometer, timestamp: record.time, vector: a)) }
            if magnetometer, let m = record.magnetometer {
                engine.update(Sample(kind: .magnetometer, timestamp: record.time, vector: m))
            }
            out.append(Output(attitude: try? engine.attitude(in: frame), calibrationAccuracy: engine.calibrationAccuracy))
        }
        return out
    }
}
