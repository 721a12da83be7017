import ArgumentParser
import MotionCore
import MotionProtocol
import MotionToolSupport

/// `motionctl monitor STREAM…`: subscribes to streams of a running motiond and prints what
/// arrives, a line per message, until interrupted (or `--duration`).
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show live streams of a running motiond (default: orientation, shake, device motion).",
        discussion: "Streams: \(StreamName.allCases.map(\.rawValue).joined(separator: ", ")). \(DaemonOptions.exitStatuses)")

    @Argument(help: "Streams to show.", completion: .list(StreamName.allCases.map(\.rawValue)))
    var streams: [String] = ["orientation", "shake", "deviceMotion"]

    @Option(help: "Seconds between values of sample streams (device motion, raw sensors, heading).")
    var interval = 0.5

    @Option(help: "Reference frame of device motion.", completion: .list(AttitudeReferenceFrame.named.map(\.name)))
    var frame = "xArbitraryZVertical"

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @OptionGroup var daemon: DaemonOptions

    @Flag(help: "JSON lines, exactly as the daemon sends them.")
    var json = false

    func validate() throws {
        for name in streams where StreamName(rawValue: name) == nil {
            throw ValidationError("unknown stream \(name): expected one of \(StreamName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if AttitudeReferenceFrame(name: frame) == nil {
            throw ValidationError("--frame \(frame): expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
        }
        try TimeOption.check(interval, "--interval")
        if let duration { try TimeOption.check(duration, "--duration") }
    }

    func run() throws {
        try daemon.run { connection in
            for (id, name) in streams.enumerated() {
                let stream = StreamName(rawValue: name)!
                let subscription = ClientRequest.Subscription(
                    id: id + 1, stream: stream, interval: stream.isSampleStream ? interval : nil,
                    frame: stream == .deviceMotion ? AttitudeReferenceFrame(name: frame) : nil)
                try connection.subscribe(subscription)
            }
            // The duration holds whether or not anything arrives.
            let end = duration.map { ContinuousClock.now + .seconds($0) }
            while true {
                guard let message = try connection.next(before: end) else { return }
                if case .goodbye(let reason) = message {
                    Console.error("motiond said goodbye: \(reason)")
                    throw DaemonOptions.goodbye
                }
                guard let line = json ? message.line : message.text else { continue }
                Console.line(line)
            }
        }
    }
}
