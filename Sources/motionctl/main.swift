import ArgumentParser

/// motionctl: the command-line companion of motiond. Offline commands work on trace files
/// without a daemon.
struct MotionCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Inspect and use motion data from motiond, or process recorded traces offline.",
        subcommands: [Fuse.self, Analyze.self, Accuracy.self, Bench.self, OrientationBench.self, DaemonBench.self, ClientBench.self, Monitor.self,
                      Status.self, Get.self, Record.self, Calibrate.self, Plot.self])
}

MotionCtl.main()
