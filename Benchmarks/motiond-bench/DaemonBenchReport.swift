import Foundation

/// One round of the daemon benchmark: a client count and what was measured with it.
struct RoundResult: Codable {
    var clients: Int
    /// deviceMotion messages received per second, all clients together.
    var messagesPerSecond: Double
    /// Messages per second per client (the request is 100 Hz).
    var perClientRateMeanHz: Double
    var perClientRateMinHz: Double
    var latencyP50Ms: Double
    var latencyP99Ms: Double
    var latencyMaxMs: Double
    var latencySamples: Int
    /// `dropped` messages received during the window, and the samples the daemon reported
    /// dropped in them; drops reported during the warm-up are counted apart.
    var dropReports: Int
    var droppedSamples: Int
    var droppedBeforeWindow: Int
    /// Clients the daemon closed during the round.
    var disconnected: Int
    /// The daemon's user + system CPU time over the window, % of one core.
    var daemonCPUPercent: Double
    /// This benchmark's own CPU over the window, % of one core (it shares the machine).
    var benchCPUPercent: Double
    /// Everything else the machine's CPUs ran over the window, and the time the hypervisor
    /// took from them (steal), % of one core: a busy or stolen-from machine skews the round.
    var otherCPUPercent: Double
    var stealPercent: Double
    /// VmRSS at the window's end and VmHWM (peak since the daemon started), MiB.
    var rssMiB: Double
    var peakRSSMiB: Double
    var measuredSeconds: Double
}

/// What `daemon-bench` prints: the setup and one row per round, as a Markdown table or JSON.
struct DaemonBenchReport: Codable {
    var daemon: String
    var source: String
    var stream: String
    var frame: String
    var requestedRateHz: Double
    var warmupSeconds: Double
    var durationSeconds: Double
    var cores: Int
    var kernel: String
    var rounds: [RoundResult]
    /// How the daemon ended on SIGTERM after the last round.
    var daemonExit: String

    var table: String {
        var lines = [
            "motiond (\(source)), each client subscribed to \(stream) in \(frame) at \(Int(requestedRateHz)) Hz; "
                + "\(String(format: "%g", warmupSeconds)) s warm-up, \(String(format: "%g", durationSeconds)) s measured per round; "
                + "\(cores) cores, Linux \(kernel)",
            "",
            "| clients | messages/s (total) | per-client rate, Hz: mean (min) | latency p50 / p99 / max, ms | drops (samples) | daemon CPU, % of one core | daemon RSS / peak (VmHWM), MiB | bench client CPU, % | other processes / steal, % |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rounds {
            var drops = "\(r.droppedSamples)"
            if r.droppedBeforeWindow > 0 { drops += " (+\(r.droppedBeforeWindow) before the window)" }
            if r.disconnected > 0 { drops += ", \(r.disconnected) clients disconnected" }
            let rate = String(format: "%.0f | %.1f (%.1f)", r.messagesPerSecond, r.perClientRateMeanHz, r.perClientRateMinHz)
            let latency = String(format: "%.3f / %.3f / %.3f", r.latencyP50Ms, r.latencyP99Ms, r.latencyMaxMs)
            let cost = String(format: "%.1f | %.1f / %.1f | %.1f | %.1f / %.1f", r.daemonCPUPercent, r.rssMiB, r.peakRSSMiB,
                              r.benchCPUPercent, r.otherCPUPercent, r.stealPercent)
            lines.append("| \(r.clients) | \(rate) | \(latency) | \(drops) | \(cost) |")
        }
        lines.append("")
        lines.append("Latency: reader's CLOCK_BOOTTIME at read() minus the message's timestamp. VmHWM is the peak since the daemon started (all rounds so far). motiond on SIGTERM: \(daemonExit).")
        return lines.joined(separator: "\n")
    }
}
