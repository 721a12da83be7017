import ArgumentParser
import FoundationEssentials
import Glibc
import MotionCore
import MotionProtocol
import MotionSync
import MotionToolSupport

/// `motionctl record FILE --duration S`: records a running motiond's raw sensors into a trace
/// file that `motiond --source replay:FILE` plays back and `fuse`, `analyze` and `plot` read.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a running motiond's accelerometer, gyroscope and magnetometer (and a convertible's base accelerometer and gyroscope) into a trace CSV.",
        discussion: """
        Subscribes to accelerometer, gyro, magnetometer, baseAccelerometer and baseGyro at \
        --interval and writes what arrives in --duration seconds (or until SIGINT/SIGTERM) as a \
        trace: a header naming the columns t, gyr_x, gyr_y, gyr_z, acc_*, mag_*, base_acc_* and \
        base_gyr_* \
        (only the sensors that delivered samples), SI units with +9.81 m/s² on the up axis at rest, t in seconds since the first \
        sample. One row per distinct sample time: sensors sampled together share a row, a sensor \
        without a sample at that time has nan in its columns (readers skip it for that row), so a \
        replay delivers each sample at its own time. The file is written when the recording ends \
        (a temporary file renamed over FILE), and the number of rows is reported. \
        \(DaemonOptions.exitStatuses)
        """)

    @Argument(help: "The trace file to write.")
    var file: String

    @Option(help: "Seconds to record.")
    var duration: Double

    @Option(help: "Seconds between samples of each sensor (0.01–0.1 runs the hardware at that period).")
    var interval = 0.01

    @Flag(help: "Report the result as one JSON line.")
    var json = false

    @OptionGroup var daemon: DaemonOptions

    /// The streams recorded, with their sensors.
    private static let streams: [StreamName] = [.accelerometer, .gyro, .magnetometer, .baseAccelerometer, .baseGyro]

    func validate() throws {
        guard duration > 0, duration.isFinite else { throw ValidationError("--duration must be a positive number of seconds") }
        guard interval >= Wire.minimumInterval, interval <= Wire.maximumInterval else {
            throw ValidationError("--interval must be between \(Wire.minimumInterval) and \(DecimalText.shortest(Wire.maximumInterval)) s")
        }
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        guard access(directory, W_OK) == 0 else {
            throw ValidationError("cannot write into \(directory): \(SystemError.last())")
        }
    }

    func run() throws {
        try daemon.run { connection in
            for (id, stream) in Self.streams.enumerated() {
                // A sensor absent now is still subscribed: its samples start if it appears.
                let granted = try connection.subscribe(.init(id: id + 1, stream: stream, interval: interval)).interval
                if granted > interval * 1.001 {
                    Console.error("\(stream): motiond grants one value every \(DecimalText.shortest(granted)) s, not \(DecimalText.shortest(interval)) s")
                }
            }
            StopSignal.install()
            Console.error("recording for \(DecimalText.shortest(duration)) s into \(file) (SIGINT stops early and keeps what was recorded)")
            let (writer, dropped, goodbye) = try record(from: connection)
            let trace = writer.csv()
            guard trace.rows > 0 else {
                if let goodbye {
                    Console.error("nothing recorded: motiond said goodbye (\(goodbye)) before any sample arrived")
                    throw DaemonOptions.goodbye
                }
                Console.error("nothing recorded: no samples arrived (motionctl status shows the sensors)")
                throw ExitCode.failure
            }
            do {
                try trace.text.write(toFile: file, atomically: true, encoding: .utf8)
            } catch {
                Console.error("cannot write \(file): \(fileErrorReason(error))")
                throw ExitCode.failure
            }
            report(rows: trace.rows, counts: writer.counts, dropped: dropped)
            if let goodbye {
                Console.error("motiond said goodbye during the recording (\(goodbye)): \(file) holds what came before")
                throw DaemonOptions.goodbye
            }
        }
    }

    /// Reads samples until the duration has passed, a stop signal arrives, or the daemon says
    /// goodbye (its reason returned).
    private func record(from connection: DaemonConnection) throws -> (TraceWriter, dropped: Int, goodbye: String?) {
        var writer = TraceWriter()
        var dropped = 0
        let end = ContinuousClock.now + .seconds(duration)
        while ContinuousClock.now < end, !StopSignal.requested {
            // Short waits, so a stop signal is seen promptly.
            guard let message = try connection.next(before: min(end, .now + .milliseconds(200))) else { continue }
            switch message {
            case .sample(let sample):
                writer.append(sample)
            case .dropped(let stream, let count, _):
                dropped += count
                Console.error("\(count) \(stream) samples lost: this machine is reading too slowly")
            case .goodbye(let reason):
                return (writer, dropped, reason)
            default:
                continue
            }
        }
        return (writer, dropped, nil)
    }

    private func report(rows: Int, counts: [SensorKind: Int], dropped: Int) {
        let kinds = SensorKind.allCases.filter { counts[$0] != nil }
        if json {
            var samples = JSONWriter()
            for kind in kinds { samples.field(kind.rawValue, counts[kind]) }
            var writer = JSONWriter()
            writer.field("file", file)
            writer.field("rows", rows)
            writer.raw("samples", samples.finished)
            writer.field("dropped", dropped)
            Console.line(writer.finished)
        } else {
            let samples = kinds.map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
            Console.line("recorded \(rows) rows to \(file) (samples: \(samples)\(dropped > 0 ? "; \(dropped) lost" : ""))")
        }
    }
}
