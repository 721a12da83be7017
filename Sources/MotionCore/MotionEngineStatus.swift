/// The flags and internal values of ``MotionEngine`` a user needs to see why it did what it did
/// (the model for `motionctl status`). Units: rad/s for the bias.
public struct MotionEngineStatus: Sendable, Hashable, Codable {
    /// Device motion is available (accelerometer and gyroscope seen, estimator initialised).
    public var initialized: Bool
    /// The rest detector holds: the gyroscope bias is being learned.
    public var atRest: Bool
    /// The magnetometer is being ignored because the field's norm or dip is off.
    public var magneticallyDisturbed: Bool
    public var calibrationAccuracy: MagneticFieldCalibrationAccuracy
    /// Move the device in a figure eight (Core Motion's `showsDeviceMovementDisplay` analog).
    public var calibrationNeeded: Bool
    public var gyroscopeBias: Vector3
    public var axisCheck: AxisSelfCheck.Verdict
    /// The correction applied to gyroscope readings, if any.
    public var gyroscopeCorrection: Matrix3?
    /// How much later than the gyroscope's the accelerometer's and the magnetometer's samples
    /// describe the motion (s), as the fusion reads them; nil when lags are not compensated.
    public var sensorLags: MotionEngine.SensorLags? = nil

    /// North-referenced output is only trustworthy from accuracy `low` up.
    public var isNorthReliable: Bool { calibrationAccuracy >= .low }
}
