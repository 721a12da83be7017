import ArgumentParser

/// The benchmarks' choice of the motiond they start as a child (``ChildDaemon``).
struct ChildDaemonOptions: ParsableArguments {
    @Option(help: "The motiond executable to start (default: the one beside this motiond-bench).")
    var motiond: String?

    /// Starts it on the simulated IMU with a private socket.
    func start() throws -> ChildDaemon {
        try ChildDaemon(executable: motiond ?? ChildDaemon.besideThisExecutable())
    }
}
