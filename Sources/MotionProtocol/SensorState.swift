import MotionCore

/// What the daemon knows of one sensor: whether it is present and usable, a sentence saying
/// why (or why not), and while it is being read, how and at what period.
public struct SensorState: Sendable, Hashable {
    public var available: Bool
    /// E.g. `reading iio:device0 (mpu6050), buffered` or `iio:device0 was removed (udev)`.
    public var reason: String
    /// `polling` or `buffered` while read; nil while idle.
    public var mode: String?
    /// The hardware period while read, seconds; nil while idle.
    public var period: Double?
    /// While the device lies still and the sensor is read at the rest rate: seconds between
    /// readings; nil otherwise.
    public var restInterval: Double?
    /// Where the sensor sits (`display`, or `base` for a convertible's keyboard half), when known.
    public var location: SensorLocation?
    /// The unit of the sensor's values when it is not its kind's usual one: `vendor` for a
    /// light sensor whose `lux` field carries a level of 0–100 (a hwmon sensor such as
    /// applesmc's), not lux.
    public var unit: String?
    /// An accelerometer whose chip reports the specific force (+1 g on the up axis: every IIO
    /// driver but a HID sensor hub's), its z turned into the gravity vector's sign by motiond
    /// (docs/SENSORS.md, "Axes"); written only when true.
    public var specificForce: Bool

    public init(available: Bool, reason: String, mode: String? = nil, period: Double? = nil, restInterval: Double? = nil,
                location: SensorLocation? = nil, unit: String? = nil, specificForce: Bool = false) {
        self.available = available
        self.reason = reason
        self.mode = mode
        self.period = period
        self.restInterval = restInterval
        self.location = location
        self.unit = unit
        self.specificForce = specificForce
    }

    /// The fields, as written into `hello`, `status` and `availability` messages.
    func write(into writer: inout JSONWriter) {
        writer.field("available", available)
        writer.field("reason", reason)
        if let mode { writer.field("mode", mode) }
        if let period { writer.field("period", period) }
        if let restInterval { writer.field("restInterval", restInterval) }
        if let location { writer.field("location", location.rawValue) }
        if let unit { writer.field("unit", unit) }
        if specificForce { writer.field("specificForce", true) }
    }

    var json: String {
        var writer = JSONWriter()
        write(into: &writer)
        return writer.finished
    }

    /// `{"accelerometer":{…},"gyroscope":{…},…}` in SensorKind order.
    static func json(_ sensors: [SensorKind: SensorState]) -> String {
        var writer = JSONWriter()
        for kind in SensorKind.allCases {
            if let state = sensors[kind] { writer.raw(kind.rawValue, state.json) }
        }
        return writer.finished
    }
}
