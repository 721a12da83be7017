import ArgumentParser
import Glibc
import MotionProtocol
import MotionRotate
import MotionToolSupport

/// motionctl: the command-line companion of motiond. Offline commands work on trace files
/// without a daemon.
struct MotionCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Inspect and use motion data from motiond, or process recorded traces offline.",
        version: MotionVersion.current,
        subcommands: [Monitor.self, Get.self, Status.self, Record.self, Calibrate.self, Fuse.self, Analyze.self, Plot.self])

    /// Without a subcommand: the usage on standard error, and EX_USAGE.
    func run() throws {
        Console.write(Self.helpMessage() + "\n", to: STDERR_FILENO)
        throw ExitCode(64)
    }
}

// One binary, three commands: started through its `motiond-rotate` link, the rotation helper;
// through `monitor-sensor` (the motiond-sensor-proxy package's), iio-sensor-proxy's client.
if Console.program == "motiond-rotate" {
    RotateCommand.main()
} else if Console.program == "monitor-sensor" {
    MonitorSensor.main()
} else {
    MotionCtl.main()
}
