import ArgumentParser
import Foundation
import Glibc
import MotionCommandLine
import MotionCore
import MotionProtocol

/// The daemon under load: starts a release `motiond` on the simulated IMU with its own socket in
/// a temporary directory, and for each client count connects that many clients, each
/// subscribed to `deviceMotion` in `xMagneticNorthZVertical` every 10 ms (100 Hz). After a
/// warm-up it measures, per round:
/// - sample-to-client latency, milliseconds (p50, p99, max): the client's CLOCK_BOOTTIME when
///   the `read()` returning a line completed, minus the line's `timestamp` (seconds since boot,
///   the sample's time);
/// - messages received per second over all clients, and per client in Hz (mean and minimum,
///   against the requested 100 Hz);
/// - samples the daemon reports dropped (`dropped` messages) during the window;
/// - the daemon's CPU time over the window (utime + stime in /proc/PID/stat), as a percentage
///   of one core;
/// - the daemon's resident memory at the window's end (VmRSS) and its peak since it started
///   (VmHWM), MiB;
/// - this benchmark's own CPU, everything else the machine ran, and the time the hypervisor
///   stole (/proc/stat), % of one core: the daemon shares the machine with all of them.
/// All clients are read by one thread through epoll, in large chunks, parsing only what it
/// needs, so that the client is not the bottleneck (its own CPU share is reported too).
struct DaemonBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon-bench",
        abstract: "Measure motiond's sample-to-client latency, delivery, drops, CPU and memory with many clients (build with -c release).")

    @OptionGroup var child: ChildDaemonOptions

    @Option(help: "Client counts, one round each, comma-separated.")
    var clients = "1,10,100,1000"

    @Option(help: "Seconds measured per round, after the warm-up.")
    var duration = 10.0

    @Option(help: "Seconds of warm-up per round before measuring (the fusion starts, backlogs clear).")
    var warmup = 2.0

    @Flag(help: "Print the results as JSON.")
    var json = false

    /// What each client sends: device motion in the magnetic-north frame at 100 Hz.
    static let request = ClientRequest.subscribe(.init(id: 1, stream: .deviceMotion, interval: 0.01, frame: .xMagneticNorthZVertical))
    static let requestedRate = 100.0

    var clientCounts: [Int] {
        clients.split(separator: ",").compactMap { Int($0.trimmingWhitespace(newlines: false)) }
    }

    func validate() throws {
        let counts = clientCounts
        guard !counts.isEmpty, counts.count == clients.split(separator: ",").count, counts.allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("--clients \(clients): expected positive integers separated by commas, e.g. 1,10,100")
        }
        guard duration.isFinite, duration > 0 else { throw ValidationError("--duration must be a positive number of seconds") }
        guard warmup.isFinite, warmup >= 0 else { throw ValidationError("--warmup must be zero or more seconds") }
    }

    func run() throws {
        let counts = clientCounts
        let limit = DescriptorLimit.raise()
        // Each client holds one descriptor here; the daemon needs as many (it raises its own).
        if let most = counts.max(), most + 64 > limit {
            throw BenchError("\(most) clients need more open files than the limit of \(limit) (ulimit -Hn)")
        }
        let daemon = try child.start()
        var rounds: [RoundResult] = []
        var stopped = false
        defer { if !stopped { _ = daemon.stop() } }
        for (index, count) in counts.enumerated() {
            // Let the previous round's disconnections settle.
            if index > 0 { Thread.sleep(forTimeInterval: 1) }
            try daemon.checkRunning()
            if !json { FileHandle.standardError.write(Data("round: \(count) clients…\n".utf8)) }
            rounds.append(try measure(count, daemon: daemon))
        }
        let ending = daemon.stop()
        stopped = true
        let report = DaemonBenchReport(daemon: daemon.executable, source: "sim:", stream: "deviceMotion", frame: "xMagneticNorthZVertical",
                                       requestedRateHz: Self.requestedRate, warmupSeconds: warmup, durationSeconds: duration,
                                       cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), kernel: Self.kernelRelease, rounds: rounds, daemonExit: ending)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            // Latencies are NaN in a round that received nothing.
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table)
        }
    }

    /// One round: connect, subscribe, warm up, measure, disconnect.
    private func measure(_ count: Int, daemon: ChildDaemon) throws -> RoundResult {
        let set = try ClientSet(count: count, path: daemon.socketPath, request: Array((Self.request.json + "\n").utf8))
        defer { set.closeAll() }

        try set.pump(for: warmup)
        // Everyone must be answered before measuring (an overloaded daemon may take longer than
        // the warm-up); a refusal, or silence for 10 s more, is a daemon problem.
        let patience = BenchClock.monotonic() + 10
        while set.accepted + set.refusals.count < count, set.disconnected == 0, BenchClock.monotonic() < patience {
            try set.pump(for: 0.1)
        }
        if let failure = set.refusals.first { throw BenchError("subscribe refused: \(failure)") }
        if set.accepted < count {
            throw BenchError("only \(set.accepted) of \(count) clients had their subscribe answered within \(warmup + 10) s"
                + (set.disconnected > 0 ? "; \(set.disconnected) were disconnected" : "")
                + (set.goodbyes.first.map { "; goodbye: \($0)" } ?? ""))
        }

        set.startRecording()
        let cpuBefore = try daemon.cpuTicks()
        let selfBefore = Self.ownCPUSeconds()
        let machineBefore = try MachineTicks()
        let start = BenchClock.monotonic()
        try set.pump(for: duration)
        let elapsed = BenchClock.monotonic() - start
        let cpuAfter = try daemon.cpuTicks()
        let selfAfter = Self.ownCPUSeconds()
        let machineAfter = try MachineTicks()
        let memory = try daemon.memory()
        try daemon.checkRunning()

        let latencies = LatencySummary(set.latencies)
        let rates = set.received.map { Double($0) / elapsed }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let daemonCPU = Double(cpuAfter - cpuBefore) / ticks / elapsed * 100
        let benchCPU = (selfAfter - selfBefore) / elapsed * 100
        let busy = Double(machineAfter.busy - machineBefore.busy) / ticks / elapsed * 100
        return RoundResult(
            clients: count,
            messagesPerSecond: Double(set.received.reduce(0, +)) / elapsed,
            perClientRateMeanHz: rates.reduce(0, +) / Double(count),
            perClientRateMinHz: rates.min() ?? 0,
            latencyP50Ms: latencies.milliseconds(at: 0.5), latencyP99Ms: latencies.milliseconds(at: 0.99), latencyMaxMs: latencies.maximumMilliseconds,
            latencySamples: latencies.count,
            dropReports: set.dropReports, droppedSamples: set.droppedSamples, droppedBeforeWindow: set.droppedBeforeRecording,
            disconnected: set.disconnected,
            daemonCPUPercent: daemonCPU, benchCPUPercent: benchCPU,
            otherCPUPercent: max(0, busy - daemonCPU - benchCPU),
            stealPercent: Double(machineAfter.steal - machineBefore.steal) / ticks / elapsed * 100,
            rssMiB: Double(memory.rss) / 1024, peakRSSMiB: Double(memory.peak) / 1024,
            measuredSeconds: elapsed)
    }

    private static var kernelRelease: String {
        var name = utsname()
        uname(&name)
        return withUnsafeBytes(of: name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// This process's user + system CPU time, seconds.
    private static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
