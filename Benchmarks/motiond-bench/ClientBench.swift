import ArgumentParser
import Foundation
import MotionClient
import MotionCore
import MotionSync

/// `motiond-bench client-bench`: what the MotionClient library adds on top of the socket. A private
/// motiond on the simulated IMU; one `MotionManager` with device motion at 100 Hz pushed to a
/// handler on an `OperationQueue`, a second consumer (an AsyncSequence) at 10 Hz on the same
/// subscription, and the accelerometer pulled every 10 ms. Latency is the time from a value's
/// sample timestamp (CLOCK_BOOTTIME) to the handler running; compare with `daemon-bench`'s
/// one-client round, which reads the socket directly.
struct ClientBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-bench",
        abstract: "Measure MotionClient's sample-to-handler latency and delivered rates against a private motiond (build with -c release).")

    @OptionGroup var child: ChildDaemonOptions

    @Option(help: "Seconds measured, after a 2 s warm-up.")
    var duration = 10.0

    func validate() throws {
        guard duration.isFinite, duration > 0 else { throw ValidationError("--duration must be a positive number of seconds") }
    }

    /// What the handlers saw, filled on their queues.
    private final class Tally: Sendable {
        private let state = Lock<(recording: Bool, latencies: [Double], pushed: Int, sequenced: Int, errors: [String])>((false, [], 0, 0, []))
        func start() { state.withLock { $0.recording = true } }
        func stop() { state.withLock { $0.recording = false } }
        func pushed(_ motion: DeviceMotion?, _ error: (any Error)?) {
            let now = BenchClock.boot()
            state.withLock {
                if let error { $0.errors.append("\(error)") }
                guard $0.recording, let motion else { return }
                $0.latencies.append(now - motion.timestamp)
                $0.pushed += 1
            }
        }
        func sequenced() { state.withLock { if $0.recording { $0.sequenced += 1 } } }
        var result: (latencies: [Double], pushed: Int, sequenced: Int, errors: [String]) {
            state.withLock { ($0.latencies, $0.pushed, $0.sequenced, $0.errors) }
        }
    }

    func run() throws {
        let daemon = try child.start()
        defer { _ = daemon.stop() }
        let manager = MotionManager(socketPath: daemon.socketPath)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let tally = Tally()
        manager.deviceMotionUpdateInterval = 0.01
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, error in tally.pushed(motion, error) }
        let sequence = Task.detached {
            for try await _ in manager.deviceMotionUpdates(using: .xMagneticNorthZVertical, interval: 0.1) { tally.sequenced() }
        }
        manager.accelerometerUpdateInterval = 0.01
        manager.startAccelerometerUpdates()
        Thread.sleep(forTimeInterval: 2)

        tally.start()
        let start = BenchClock.monotonic()
        var pulls = 0, fresh = 0
        var last = -Double.infinity
        while BenchClock.monotonic() - start < duration {
            if let sample = manager.accelerometerData {
                pulls += 1
                if sample.timestamp > last { fresh += 1 }
                last = sample.timestamp
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        tally.stop()
        let elapsed = BenchClock.monotonic() - start
        sequence.cancel()
        manager.stopDeviceMotionUpdates()
        manager.stopAccelerometerUpdates()

        let result = tally.result
        guard result.errors.isEmpty else { throw BenchError("the handler got errors: \(result.errors.joined(separator: "; "))") }
        let latencies = LatencySummary(result.latencies)
        func text(_ value: Double) -> String { DecimalText.fixed(value, decimals: 2) }
        print("MotionClient against motiond (sim:), \(text(elapsed)) s measured")
        print("device motion pushed at 100 Hz: \(text(Double(result.pushed) / elapsed)) Hz; latency p50 \(text(latencies.milliseconds(at: 0.5))) ms, p99 \(text(latencies.milliseconds(at: 0.99))) ms, max \(text(latencies.maximumMilliseconds)) ms (\(latencies.count) values)")
        print("a second consumer at 10 Hz on the same subscription: \(text(Double(result.sequenced) / elapsed)) Hz")
        print("accelerometer pulled every 10 ms: \(pulls) reads, \(fresh) with a newer value")
    }
}
