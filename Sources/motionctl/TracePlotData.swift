import MotionCore

/// What `motionctl plot` draws from a trace, from one pass of the daemon's motion engine and
/// event detectors over it, fed as `motionctl analyze` feeds them (per row: gyroscope,
/// accelerometer, magnetometer, each followed by the detectors).
///
/// Times are seconds since the trace's first row. Sensor values are in Core Motion units
/// (acceleration in G with the gravity-vector sign, rotation rate in rad/s, magnetic field in
/// µT); attitude is Core Motion's roll, pitch and yaw in degrees, heading degrees clockwise
/// from magnetic north of the top edge. A value the row does not have, or the engine cannot
/// give yet (warming up), is nil.
struct TracePlotData {
    var times: [Double] = []
    var acceleration: [Vector3?] = []
    var rotationRate: [Vector3?] = []
    var magneticField: [Vector3?] = []
    /// (roll, pitch, yaw), degrees.
    var attitude: [Vector3?] = []
    var heading: [Double?] = []
    /// The frame of ``attitude``: magnetic north when the trace has a magnetometer, else arbitrary.
    let frame: AttitudeReferenceFrame
    /// Events, with times since the first row.
    var events: [MotionEvent] = []
    /// The sensors the trace has columns for.
    let kinds: Set<SensorKind>

    init(trace: TraceReader.Trace, engine configuration: MotionEngine.Configuration) {
        kinds = trace.kinds
        let magnetometer = trace.kinds.contains(.magnetometer)
        frame = magnetometer ? .xMagneticNorthZVertical : .xArbitraryZVertical
        guard let start = trace.records.first?.time else { return }
        var engine = MotionEngine(configuration: configuration)
        var detectors = MotionEventDetectors()
        let degrees = 180 / Double.pi
        for record in trace.records {
            let time = record.time - start
            for sample in record.samples(timestamp: time) {
                engine.update(sample)
                events += detectors.update(sample, engine: engine)
            }
            times.append(time)
            acceleration.append(record.accelerometer)
            rotationRate.append(record.gyroscope)
            magneticField.append(record.magnetometer)
            attitude.append((try? engine.attitude(in: frame)).map {
                let a = Attitude(quaternion: $0)
                return Vector3(a.roll * degrees, a.pitch * degrees, a.yaw * degrees)
            })
            heading.append(magnetometer ? (try? engine.heading())?.magneticHeading : nil)
        }
    }
}
