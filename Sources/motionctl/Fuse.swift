import ArgumentParser
import MotionCommandLine
import MotionCore
import MotionToolSupport

struct Fuse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon's motion engine over a trace; write t,qw,qx,qy,qz.",
        discussion: """
        The quaternion rotates device-frame vectors into the reference frame (Z up). Rows before the \
        engine has warmed up (no accelerometer and gyroscope sample yet) are left out.

        --offline estimates each attitude from the whole trace, the samples after it as well as before \
        (a forward-backward smoother: the gyroscope bias from every rest, the accelerometer's and \
        magnetometer's lags behind the gyroscope, no filter delay, a heading bridged across magnetic \
        disturbances; docs/ACCURACY.md). More accurate, and only for recorded traces: the daemon cannot do \
        this live. Rows with no attitude (a gap in the gyroscope or accelerometer) are left out; \
        --apply-axis-correction has no effect there.
        """)

    @Option(help: "Trace CSV (t,gyr_*,acc_*[,mag_*]).")
    var input: String

    @Option(help: "Output CSV.")
    var output: String

    @Option(help: "Reference frame: xArbitraryZVertical (6D), xArbitraryCorrectedZVertical, xMagneticNorthZVertical (default), xTrueNorthZVertical.")
    var frame = "xMagneticNorthZVertical"

    @Flag(help: "Offline only: estimate each attitude from the whole trace (forward and backward in time), not as the daemon would live.")
    var offline = false

    @OptionGroup var engine: EngineOptions

    func run() throws {
        guard let frame = AttitudeReferenceFrame(name: frame) else {
            throw ValidationError("--frame \(self.frame): expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
        }
        let configuration = try engine.configuration()
        let trace = try loadTrace(input)
        if frame != .xArbitraryZVertical && !trace.kinds.contains(.magnetometer) {
            throw ValidationError("\(input) has no magnetometer columns: use --frame xArbitraryZVertical")
        }
        if frame == .xTrueNorthZVertical && configuration.declination == nil {
            throw ValidationError("xTrueNorthZVertical needs --declination or --latitude/--longitude")
        }
        let attitudes = offline
            ? TraceFusion.smoothedAttitudes(for: trace.records, frame: frame, configuration: configuration)
            : TraceFusion.attitudes(for: trace.records, frame: frame, configuration: configuration)
        var text = "t,qw,qx,qy,qz\n"
        for (record, q) in zip(trace.records, attitudes) {
            guard let q else { continue }
            text += "\(record.time),\(q.w),\(q.x),\(q.y),\(q.z)\n"
        }
        try text.write(toFile: output, atomically: true, encoding: .utf8)
    }
}
