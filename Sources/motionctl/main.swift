import ArgumentParser
import Foundation

/// motionctl: the command-line companion of motiond. Offline commands work on trace files
/// without a daemon.
struct MotionCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Inspect and use motion data from motiond, or process recorded traces offline.",
        subcommands: [Fuse.self, Analyze.self, Accuracy.self, Bench.self, OrientationBench.self, HingeBench.self, DaemonBench.self, ClientBench.self, Monitor.self,
                      Status.self, Get.self, Record.self, Calibrate.self, Plot.self])

    /// Without a subcommand: the usage on standard error, and EX_USAGE.
    func run() throws {
        FileHandle.standardError.write(Data((Self.helpMessage() + "\n").utf8))
        throw ExitCode(64)
    }
}

MotionCtl.main()
