import Foundation
import MotionCore

/// The answer to `status`: the source, every sensor, the fusion's flags, and who is connected.
public struct DaemonStatus: Sendable, Hashable {
    /// The source URI (`local:`, `ip:HOST`, `sim:`, `replay:FILE`).
    public var source: String
    /// Seconds since the daemon started.
    public var uptime: Double
    public var sensors: [SensorKind: SensorState]
    public var frames: AttitudeReferenceFrame
    public var engine: MotionEngineStatus
    /// Connected clients.
    public var clients: Int
    /// Subscriptions per stream, over all clients.
    public var subscriptions: [StreamName: Int]

    public init(source: String, uptime: Double, sensors: [SensorKind: SensorState], frames: AttitudeReferenceFrame,
                engine: MotionEngineStatus, clients: Int, subscriptions: [StreamName: Int]) {
        self.source = source
        self.uptime = uptime
        self.sensors = sensors
        self.frames = frames
        self.engine = engine
        self.clients = clients
        self.subscriptions = subscriptions
    }

    var json: String {
        var writer = JSONWriter()
        writer.field("source", source)
        writer.field("uptime", uptime)
        writer.raw("sensors", SensorState.json(sensors))
        writer.raw("frames", JSONWriter.array(frames.names))
        var flags = JSONWriter()
        flags.field("initialized", engine.initialized)
        flags.field("atRest", engine.atRest)
        flags.field("magneticallyDisturbed", engine.magneticallyDisturbed)
        flags.field("calibrationAccuracy", engine.calibrationAccuracy.description)
        flags.field("calibrationNeeded", engine.calibrationNeeded)
        flags.field("northReliable", engine.isNorthReliable)
        flags.field("gyroscopeBias", engine.gyroscopeBias)
        flags.field("axisCheck", "\(engine.axisCheck)")
        if let correction = engine.gyroscopeCorrection { flags.field("gyroscopeCorrection", correction.text) }
        writer.raw("engine", flags.finished)
        writer.field("clients", clients)
        var counts = JSONWriter()
        for stream in StreamName.allCases { if let n = subscriptions[stream] { counts.field(stream.rawValue, n) } }
        writer.raw("subscriptions", counts.finished)
        return writer.finished
    }
}
