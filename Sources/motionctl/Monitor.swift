import ArgumentParser
import Foundation
import MotionCore
import MotionProtocol

/// `motionctl monitor STREAM…`: subscribes to streams of a running motiond and prints what
/// arrives, a line per message, until interrupted (or `--duration`).
struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show live streams of a running motiond (default: orientation, shake, device motion).",
        discussion: "Streams: \(StreamName.allCases.map(\.rawValue).joined(separator: ", ")). Exit status 69 when the daemon cannot be reached, 76 when it speaks another protocol, 77 when its access policy refuses a stream or the connection.")

    @Argument(help: "Streams to show.")
    var streams: [String] = ["orientation", "shake", "deviceMotion"]

    @Option(help: "The daemon's socket.")
    var socket = Wire.defaultSocketPath

    @Option(help: "Seconds between values of sample streams (device motion, raw sensors, heading).")
    var interval = 0.5

    @Option(help: "Reference frame of device motion.")
    var frame = "xArbitraryZVertical"

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(help: "Keep trying to reach the daemon for this many seconds (it may still be starting).")
    var wait = 0.0

    @Flag(help: "JSON lines, exactly as the daemon sends them.")
    var json = false

    func validate() throws {
        for name in streams where StreamName(rawValue: name) == nil {
            throw ValidationError("unknown stream \(name): expected one of \(StreamName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if AttitudeReferenceFrame(name: frame) == nil {
            throw ValidationError("--frame \(frame): expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        do {
            let connection = try DaemonConnection(path: socket, wait: wait)
            for (id, name) in streams.enumerated() {
                let stream = StreamName(rawValue: name)!
                let subscription = ClientRequest.Subscription(
                    id: id + 1, stream: stream, interval: stream.isSampleStream ? interval : nil,
                    frame: stream == .deviceMotion ? AttitudeReferenceFrame(name: frame) : nil)
                if case .failure(let error) = try connection.request(.subscribe(subscription)) {
                    guard error.code != .accessDenied else { throw DaemonConnection.Failure.denied(error.message) }
                    FileHandle.standardError.write(Data("motionctl: \(name): \(error.message)\n".utf8))
                    throw ExitCode.failure
                }
            }
            if let duration {
                DispatchQueue.global().asyncAfter(deadline: .now() + duration) { Foundation.exit(0) }
            }
            while true {
                let message = try connection.next()
                if case .goodbye(let reason) = message {
                    FileHandle.standardError.write(Data("motionctl: motiond said goodbye: \(reason)\n".utf8))
                    throw ExitCode(69)
                }
                guard let line = json ? message.line : message.text else { continue }
                // Unbuffered, so a pipe (`| grep`) sees each line as it comes.
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        } catch let failure as DaemonConnection.Failure {
            FileHandle.standardError.write(Data("motionctl: \(failure)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }
}
