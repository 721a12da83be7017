import MotionCore

/// The first line the daemon sends on every connection: protocol version, sensors, the
/// reference frames it can serve now, the limits of update intervals, and what this
/// connection may receive.
public struct Hello: Sendable, Hashable {
    public var daemon: String
    public var sensors: [SensorKind: SensorState]
    public var frames: AttitudeReferenceFrame
    /// What the access policy gives this connection (nil from a daemon that does not say).
    public var access: AccessGrant?

    public init(daemon: String, sensors: [SensorKind: SensorState], frames: AttitudeReferenceFrame, access: AccessGrant?) {
        self.daemon = daemon
        self.sensors = sensors
        self.frames = frames
        self.access = access
    }

    func write(into writer: inout JSONWriter) {
        writer.field("protocol", Wire.version)
        writer.field("daemon", daemon)
        writer.raw("sensors", SensorState.json(sensors))
        writer.raw("frames", JSONWriter.array(frames.names))
        writer.raw("streams", JSONWriter.array(StreamName.allCases.map(\.rawValue)))
        var intervals = JSONWriter()
        intervals.field("minimum", Wire.minimumInterval)
        intervals.field("maximum", Wire.maximumInterval)
        intervals.field("fastestHardware", Wire.hardwarePeriods.lowerBound)
        intervals.field("slowestHardware", Wire.hardwarePeriods.upperBound)
        writer.raw("intervals", intervals.finished)
        writer.field("maximumLineLength", Wire.maximumLineLength)
        if let access {
            var grant = JSONWriter()
            access.write(into: &grant)
            writer.raw("access", grant.finished)
        }
    }
}
