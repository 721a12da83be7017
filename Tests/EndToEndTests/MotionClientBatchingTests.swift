import Foundation
import MotionClient
import MotionProtocol
import MotionSync
@testable import TestSupport
import Testing

/// MotionClient's maximum report latency (beyond Core Motion, as Android's) against a real
/// motiond on the simulated IMU: the option reaches the daemon (values arrive in batches, so
/// many arrive long after they were measured), and handlers and sequences still get every
/// value, one call each, in order.
@Suite("MotionClient batching")
struct MotionClientBatchingTests {
    /// When a value arrived (CLOCK_BOOTTIME) and when it was measured.
    typealias Seen = (arrival: Double, timestamp: Double)

    /// Every value at 0.02 s, in order, none lost; and batched: the oldest of each batch
    /// arrives at least the latency after it was measured, about half the values late by more
    /// than a quarter of it. Without batching values arrive within milliseconds.
    static func checkBatched(_ seen: [Seen], latency: Double, _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(seen.count >= 60, "\(who): \(seen.count) values", sourceLocation: sourceLocation)
        let steps = zip(seen, seen.dropFirst()).map { $1.timestamp - $0.timestamp }
        #expect(steps.allSatisfy { $0 > 0.015 && $0 < 0.031 }, "\(who): every value at 0.02 s, in order: \(steps)", sourceLocation: sourceLocation)
        let lateness = seen.map { $0.arrival - $0.timestamp }
        #expect((lateness.max() ?? 0) >= latency - 0.02, "\(who): at most \(lateness.max() ?? 0) s late", sourceLocation: sourceLocation)
        let late = Double(lateness.filter { $0 > latency / 4 }.count) / Double(max(lateness.count, 1))
        #expect(late > 0.3, "\(who): only \(late) of the values more than \(latency / 4) s late", sourceLocation: sourceLocation)
    }

    @Test("accelerometerMaximumReportLatency and gyroUpdates(maximumReportLatency:) reach the daemon; handlers and sequences get every value, in order")
    func reportLatency() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        // The socket appears once the daemon listens.
        _ = try await daemon.connect()
        let manager = MotionManager(socketPath: daemon.socket)

        manager.magnetometerMaximumReportLatency = 100
        #expect(manager.magnetometerMaximumReportLatency == Wire.maximumLatency)
        manager.magnetometerMaximumReportLatency = -1
        #expect(manager.magnetometerMaximumReportLatency == 0)
        #expect(manager.accelerometerMaximumReportLatency == 0, "the default: no batching, as Core Motion")

        let queue = MotionClientTests.queue("batched")
        let pushed = Lock<(values: [Seen], errors: [String])>(([], []))
        manager.accelerometerUpdateInterval = 0.02
        manager.accelerometerMaximumReportLatency = 0.5
        #expect(manager.accelerometerMaximumReportLatency == 0.5)
        manager.startAccelerometerUpdates(to: queue) { data, error in
            let now = Emulation.bootTime()
            pushed.withLock {
                if let data { $0.values.append((now, data.timestamp)) }
                if let error { $0.errors.append("\(error)") }
            }
        }

        var sequence: [Seen] = []
        for try await value in manager.gyroUpdates(interval: 0.02, maximumReportLatency: 0.5) {
            sequence.append((Emulation.bootTime(), value.timestamp))
            if sequence.count == 120 { break }
        }
        manager.stopAccelerometerUpdates()

        let (values, errors) = pushed.withLock { ($0.values, $0.errors) }
        #expect(errors.isEmpty, "\(errors)")
        Self.checkBatched(values, latency: 0.5, "handler")
        Self.checkBatched(sequence, latency: 0.5, "sequence")
    }
}
