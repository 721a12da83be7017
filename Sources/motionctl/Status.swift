import ArgumentParser
import FoundationEssentials
import MotionCore
import MotionProtocol
import MotionToolSupport

/// `motionctl status`: what a running motiond is doing (the `status` request), for people, or
/// the daemon's status object for scripts.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a running motiond's source, sensors, fusion flags, clients and this connection's access.",
        discussion: """
        Sensors show whether they are present, and while read how (polling or buffered) and how \
        fast; frames are the reference frames device motion can be given in now; engine and \
        calibration are the fusion's flags; access is what the daemon's policy gives this user \
        (from its hello). --json prints the daemon's status object as one line (keys sorted). \
        \(DaemonOptions.exitStatuses)
        """)

    @OptionGroup var daemon: DaemonOptions

    @Flag(help: "The status object as one JSON line.")
    var json = false

    func run() throws {
        try daemon.run { connection in
            guard case .status(let status) = try connection.call(.status(id: 1)) else {
                throw DaemonConnection.Failure.protocolError(ProtocolError(.invalidValue, "the status reply carries no status"))
            }
            if json {
                Console.line(try Self.statusObject(inReply: connection.lastLine))
            } else {
                Console.line(Self.text(status, access: connection.hello.access, socket: daemon.socket))
            }
        }
    }

    /// The reply's `status` object as the daemon sent it, fields this motionctl does not know
    /// included, as one line.
    private static func statusObject(inReply line: [UInt8]) throws -> String {
        guard case .object(let reply) = try JSONValue.parse(line), let status = reply["status"] else {
            throw DaemonConnection.Failure.protocolError(ProtocolError(.invalidValue, "the status reply carries no status object"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(status), as: UTF8.self)
    }

    /// The status as aligned `name  value` lines.
    static func text(_ status: DaemonStatus, access: AccessGrant?, socket: String) -> String {
        var lines: [String] = []
        func add(_ name: String, _ value: String) { lines.append(name.padding(to: 15) + value) }
        add("daemon", socket + (status.daemon.map { " (\($0))" } ?? ""))
        add("source", status.source)
        add("uptime", duration(status.uptime))
        add("access", access.map { "\($0) for this connection" } ?? "not stated by this daemon")
        lines.append("sensors")
        for kind in SensorKind.allCases {
            let state = status.sensors[kind]
            // A name longer than the column (baseAccelerometer) keeps one space.
            let name = kind.rawValue.padding(to: max(15, kind.rawValue.count + 1))
            lines.append("  " + name + (state.map(sensor) ?? "not reported"))
        }
        add("frames", status.frames.names.isEmpty ? "none" : status.frames.names.joined(separator: ", "))
        let engine = status.engine
        add("engine", [engine.initialized ? "initialized" : "not initialized (waiting for accelerometer and gyroscope)",
                       engine.atRest ? "at rest" : "moving",
                       engine.magneticallyDisturbed ? "magnetically disturbed" : "magnetic field undisturbed",
                       engine.northReliable ? "north reliable" : "north not reliable"].joined(separator: ", "))
        let bias = engine.gyroscopeBias
        add("", "gyroscope bias (\([bias.x, bias.y, bias.z].map { DecimalText.fixed($0, decimals: 5, plus: true) }.joined(separator: " "))) rad/s")
        add("", "axis check: \(engine.axisCheck)" + (engine.gyroscopeCorrection.map { "; gyroscope correction applied: \($0)" } ?? ""))
        if let lags = engine.sensorLags {
            let ms = { (lag: Double) in "\(DecimalText.fixed(1000 * lag, decimals: 1)) ms" }
            add("", "sensor lags behind the gyroscope: accelerometer \(ms(lags.accelerometer)), magnetometer \(ms(lags.magnetometer)) (learned from turning, 0 until then; fused as at the gyroscope's time)")
        }
        add("calibration", "\(engine.calibrationAccuracy)" + (engine.calibrationNeeded ? " (move the device in a figure eight: motionctl calibrate)" : ""))
        add("clients", "\(status.clients)")
        let subscriptions = StreamName.allCases.compactMap { stream in status.subscriptions[stream].map { "\(stream) \($0)" } }
        add("subscriptions", subscriptions.isEmpty ? "none" : subscriptions.joined(separator: ", "))
        add("heap in use", status.heapInUse.map(bytes) ?? "not reported")
        return lines.joined(separator: "\n")
    }

    /// `available, buffered at 100.0 Hz (every 0.010 s): reading …` (with `, at rest: read every
    /// 0.350 s` at the rest rate), or `available, idle: …`.
    private static func sensor(_ state: SensorState) -> String {
        guard state.available else { return "unavailable: \(state.reason)" }
        guard let period = state.period, period > 0 else { return "available, idle: \(state.reason)" }
        let rate = "\(DecimalText.fixed(1 / period, decimals: 1)) Hz (every \(DecimalText.fixed(period, decimals: 3)) s)"
        let rest = state.restInterval.map { ", at rest: read every \(DecimalText.fixed($0, decimals: 3)) s" } ?? ""
        return "available, \(state.mode ?? "read") at \(rate)\(rest): \(state.reason)"
    }

    /// `42.3 s`, `1 h 02 min`.
    private static func duration(_ seconds: Double) -> String {
        guard seconds >= 3600 else { return "\(DecimalText.fixed(seconds, decimals: 1)) s" }
        let minutes = Int(seconds / 60)
        return "\(minutes / 60) h \(minutes % 60 < 10 ? "0\(minutes % 60)" : "\(minutes % 60)") min"
    }

    /// `812 KiB`, `12.4 MiB`.
    private static func bytes(_ count: Int) -> String {
        count < 1 << 20 ? "\(count >> 10) KiB" : "\(DecimalText.fixed(Double(count) / Double(1 << 20), decimals: 1)) MiB"
    }
}
