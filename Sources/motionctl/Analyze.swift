import ArgumentParser
import MotionCommandLine
import MotionCore
import MotionProtocol
import MotionToolSupport

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every motion event detector over a trace and print the events with their timestamps.",
        discussion: "The daemon's engine and detectors, offline: use it to see what a recording triggers and to tune thresholds.")

    @Option(help: "Trace CSV (t,gyr_*,acc_*[,mag_*]); without gyroscope columns gravity comes from low-passed acceleration.")
    var input: String

    @Flag(help: "JSON lines in the socket protocol's event shapes.")
    var json = false

    @Option(help: "Shake threshold, G of user acceleration.")
    var shakeThreshold: Double?

    @Option(help: "Orientation settle time, s.")
    var settleTime: Double?

    @Option(help: "Slap threshold, G of high-passed x acceleration.")
    var slapThreshold: Double?

    @Option(help: "Tap threshold, G of high-passed acceleration.")
    var tapThreshold: Double?

    @OptionGroup var engine: EngineOptions

    func validate() throws {
        if let settleTime { try TimeOption.check(settleTime, "--settle-time", allowZero: true) }
    }

    func run() throws {
        let trace = try loadTrace(input)
        var motionEngine = MotionEngine(configuration: try engine.configuration())
        var configuration = DetectorConfiguration()
        if let shakeThreshold { configuration.shake.threshold = shakeThreshold }
        if let settleTime { configuration.orientation.settleTime = settleTime }
        if let slapThreshold { configuration.slap.threshold = slapThreshold }
        if let tapThreshold { configuration.tap.threshold = tapThreshold }
        var detectors = MotionEventDetectors(configuration: configuration)
        var count = 0
        for record in trace.records {
            for sample in record.samples(timestamp: record.time) {
                motionEngine.update(sample)
                for event in detectors.update(sample, engine: motionEngine) {
                    print(json ? ServerMessage.event(event).line : event.text)
                    count += 1
                }
            }
        }
        if !json { print("\(count) events in \(trace.records.count) rows") }
    }
}
