import ArgumentParser
import MotionCore
import MotionProtocol
import MotionToolSupport

/// `motionctl calibrate`: guides the figure-eight motion that calibrates the magnetometer and
/// follows the daemon's calibration accuracy (uncalibrated < low < medium < high) until it is
/// good enough.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate a running motiond's magnetometer (compass): move the device in a figure eight until the accuracy is high.",
        discussion: """
        Runs the magnetometer (a magnetometer subscription at 50 Hz) and follows the daemon's \
        calibration stream, printing the accuracy as it rises: uncalibrated, low, medium, high. \
        The calibration is the daemon's own and stays after this command ends (saved in its \
        state file when it has one). Exits 0 once the accuracy is high (with --accept-medium: \
        medium); 1 on --timeout, or when there is no magnetometer. --json prints the calibration \
        messages as the daemon sends them instead of sentences. \(DaemonOptions.exitStatuses)
        """)

    @Option(help: "Seconds to keep trying before giving up.")
    var timeout = 120.0

    @Flag(help: "Be content with medium accuracy (enough for a compass; high also needs the field strength of Earth's field).")
    var acceptMedium = false

    @Flag(help: "The daemon's calibration messages as JSON lines.")
    var json = false

    @OptionGroup var daemon: DaemonOptions

    /// Seconds between the reminders while the accuracy stays where it is.
    private static let reminderPeriod = 10.0

    func validate() throws {
        try TimeOption.check(timeout, "--timeout")
    }

    func run() throws {
        let target: MagneticFieldCalibrationAccuracy = acceptMedium ? .medium : .high
        try daemon.run { connection in
            guard let magnetometer = connection.hello.sensors[.magnetometer], magnetometer.available else {
                let why = connection.hello.sensors[.magnetometer]?.reason ?? "motiond reports none"
                Console.error("no magnetometer, so no compass to calibrate (\(why))")
                throw ExitCode.failure
            }
            try connection.subscribe(.init(id: 1, stream: .magnetometer, interval: 0.02))
            // Last: the current accuracy follows this reply, and a later request would skip it.
            try connection.subscribe(.init(id: 2, stream: .calibration))
            if !json {
                Console.line("""
                    Hold the device away from metal and magnets, and move it in a figure eight in the air, \
                    turning it through every direction (face up, face down, on each edge), until the accuracy \
                    reaches \(target). Giving up after \(DecimalText.shortest(timeout)) s.
                    """)
            }
            let start = ContinuousClock.now
            let end = start + .seconds(timeout)
            var accuracy: MagneticFieldCalibrationAccuracy?
            var reminder = start + .seconds(Self.reminderPeriod)
            while true {
                guard let message = try connection.next(before: min(end, reminder)) else {
                    guard ContinuousClock.now < end else { break }
                    if !json { Console.line("… still \(accuracy.map(\.description) ?? "unknown") after \(seconds(since: start)): keep turning") }
                    reminder = .now + .seconds(Self.reminderPeriod)
                    continue
                }
                switch message {
                case .calibration(let now, _) where now != accuracy:
                    accuracy = now
                    reminder = .now + .seconds(Self.reminderPeriod)
                    Console.line(json ? message.line : "accuracy \(now) after \(seconds(since: start))")
                    if now >= target {
                        if !json { Console.line("calibrated: the compass accuracy is \(now)") }
                        return
                    }
                case .availability(.magnetometer, let state) where !state.available:
                    Console.error("the magnetometer went away: \(state.reason)")
                    throw ExitCode.failure
                case .goodbye(let reason):
                    Console.error("motiond said goodbye: \(reason)")
                    throw ExitCode(DaemonConnection.Failure.closed.exitCode)
                default:
                    continue
                }
            }
            Console.error("not calibrated within \(DecimalText.shortest(timeout)) s: the accuracy is \(accuracy.map(\.description) ?? "unknown"), \(target) is needed; move through more directions, away from metal, and try again")
            throw ExitCode.failure
        }
    }

    /// `12.3 s`.
    private func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = start.duration(to: .now).components
        return "\(DecimalText.fixed(Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18, decimals: 1)) s"
    }
}
