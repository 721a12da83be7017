/// Runs a ``MotionEngine`` over a whole trace, exactly as the daemon feeds it: per row the
/// gyroscope, then the accelerometer, then the magnetometer, at the row's time — or, offline,
/// the ``AttitudeSmoother`` over the whole trace at once.
public enum TraceFusion {
    /// What the engine gives after one record.
    public struct Output: Sendable, Hashable {
        /// The attitude in the frame asked for (device → reference), nil while the engine warms up.
        public var attitude: Quaternion?
        /// The magnetometer calibration's accuracy as the engine reports it.
        public var calibrationAccuracy: MagneticFieldCalibrationAccuracy
        /// The sensor lags the engine reads at (0 until learned, or when lags are not compensated).
        public var sensorLags: MotionEngine.SensorLags
        /// The hard iron of the online magnetometer calibration, µT in the device frame (zero for
        /// the identity, which trusted readings keep).
        public var magnetometerOffset: Vector3
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
            out.append(Output(attitude: try? engine.attitude(in: frame), calibrationAccuracy: engine.calibrationAccuracy,
                              sensorLags: engine.sensorLags, magnetometerOffset: engine.calibrator.calibration.offset))
        }
        return out
    }

    /// The offline ``AttitudeSmoother`` over the whole trace, the magnetometer calibrated first
    /// as `configuration` says: with online calibration, the calibration the online calibrator
    /// holds at the end of the trace is applied to every reading (it has seen them all).
    public static func smoothed(_ records: [TraceRecord], configuration: MotionEngine.Configuration = MotionEngine.Configuration(),
                                parameters: AttitudeSmootherParameters = AttitudeSmootherParameters()) -> AttitudeSmoother.Result {
        var records = records
        if configuration.magnetometerCalibration == .online {
            var calibrator = MagnetometerCalibrator(parameters: configuration.calibrator)
            for record in records {
                if let g = record.gyroscope { calibrator.update(rate: g) }
                if let m = record.magnetometer { calibrator.update(m, at: record.time) }
            }
            let calibration = calibrator.calibration
            for i in records.indices { records[i].magnetometer = records[i].magnetometer.map(calibration.apply) }
        }
        return AttitudeSmoother(parameters: parameters).smooth(records)
    }

    /// One attitude per record in `frame` from ``smoothed(_:configuration:parameters:)`` (nil
    /// where it has none: no gyroscope or accelerometer reading near the record's time, no
    /// magnetometer for the north frames, no declination in `configuration` for true north).
    /// Offline only: each attitude depends on the whole trace. The arbitrary frames put X where
    /// the device pointed at the first attitude, as the engine does when updates start with the
    /// trace.
    public static func smoothedAttitudes(for records: [TraceRecord], frame: AttitudeReferenceFrame,
                                         configuration: MotionEngine.Configuration = MotionEngine.Configuration(),
                                         parameters: AttitudeSmootherParameters = AttitudeSmootherParameters()) -> [Quaternion?] {
        let result = smoothed(records, configuration: configuration, parameters: parameters)
        func fromFirstYaw(_ attitudes: [Quaternion?]) -> [Quaternion?] {
            guard let first = attitudes.lazy.compactMap({ $0 }).first else { return attitudes }
            let yaw = Attitude(quaternion: first).yaw
            return attitudes.map { $0?.turnedAboutVertical(by: -yaw) }
        }
        switch frame {
        case .xArbitraryZVertical:
            return fromFirstYaw(result.attitude6D)
        case .xArbitraryCorrectedZVertical:
            return fromFirstYaw(result.attitude9D)
        case .xTrueNorthZVertical:
            guard let declination = configuration.declination else { return Array(repeating: nil, count: records.count) }
            // Magnetic north lies `declination` east (clockwise) of true north.
            return result.attitude9D.map { $0?.turnedAboutVertical(by: -declination * .pi / 180) }
        default:
            return result.attitude9D
        }
    }
}
