import ArgumentParser
import Foundation
import MotionProtocol

/// motiond-bench: the developer's benchmarks and the accuracy evaluation (`make bench`,
/// `bench-hinge`, `bench-daemon`, `bench-client`, `accuracy`; docs/PERFORMANCE.md and
/// docs/ACCURACY.md). Built with the project, never installed: users get motionctl.
struct MotiondBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motiond-bench",
        abstract: "Benchmarks and accuracy evaluation of motiond, for its developers (build with -c release).",
        version: MotionVersion.current,
        subcommands: [Accuracy.self, OfflineAccuracy.self, Bench.self, OrientationBench.self, HingeBench.self, DaemonBench.self, ClientBench.self])

    /// Without a subcommand: the usage on standard error, and EX_USAGE.
    func run() throws {
        FileHandle.standardError.write(Data((Self.helpMessage() + "\n").utf8))
        throw ExitCode(64)
    }
}

MotiondBench.main()
