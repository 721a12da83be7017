/// One row of a trace file, converted to Core Motion units and conventions.
///
/// Trace files (DESIGN.md) store SI units and the inertial-navigation acceleration sign
/// (+9.81 m/s² on the up axis at rest); a record holds the accelerometer in G with the
/// gravity-vector sign (face up at rest: z ≈ −1), the gyroscope in rad/s and the
/// magnetometer in µT. A sensor absent from the file, or NaN in that row, is `nil`.
public struct TraceRecord: Sendable, Hashable {
    /// Seconds, in the trace's own time base.
    public var time: Double
    public var accelerometer: Vector3?
    public var gyroscope: Vector3?
    public var magnetometer: Vector3?
    /// A convertible's base accelerometer (`base_acc_x,base_acc_y,base_acc_z`, SI and sign as
    /// `acc_*`), in G with the gravity-vector sign.
    public var baseAccelerometer: Vector3?
    /// A convertible's base gyroscope (`base_gyr_x,base_gyr_y,base_gyr_z`), rad/s.
    public var baseGyroscope: Vector3?
    /// Ground-truth orientation when the trace has one (`opt_qw,opt_qx,opt_qy,opt_qz`, as in
    /// BROAD): rotates sensor-frame vectors into East-North-Up. `nil` where it is NaN.
    public var reference: Quaternion?
    /// Whether the row belongs to the evaluated movement phase (`movement` column), if given.
    public var movement: Bool?

    public init(time: Double, accelerometer: Vector3? = nil, gyroscope: Vector3? = nil, magnetometer: Vector3? = nil,
                baseAccelerometer: Vector3? = nil, baseGyroscope: Vector3? = nil, reference: Quaternion? = nil, movement: Bool? = nil) {
        self.time = time
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.baseAccelerometer = baseAccelerometer
        self.baseGyroscope = baseGyroscope
        self.reference = reference
        self.movement = movement
    }

    /// The record's readings as samples stamped `timestamp`, in the order base accelerometer,
    /// base gyroscope, gyroscope, accelerometer, magnetometer (the base's first: the hinge angle
    /// comes with the display's sample).
    public func samples(timestamp: Double) -> [Sample] {
        var out: [Sample] = []
        if let b = baseAccelerometer { out.append(Sample(kind: .baseAccelerometer, timestamp: timestamp, vector: b)) }
        if let b = baseGyroscope { out.append(Sample(kind: .baseGyroscope, timestamp: timestamp, vector: b)) }
        if let g = gyroscope { out.append(Sample(kind: .gyroscope, timestamp: timestamp, vector: g)) }
        if let a = accelerometer { out.append(Sample(kind: .accelerometer, timestamp: timestamp, vector: a)) }
        if let m = magnetometer { out.append(Sample(kind: .magnetometer, timestamp: timestamp, vector: m)) }
        return out
    }
}
