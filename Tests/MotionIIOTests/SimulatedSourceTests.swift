import Dispatch
import Foundation
import Glibc
import MotionCore
import MotionIIO
import Testing
import MotionSync

/// CLOCK_BOOTTIME in seconds, read by the test itself (not through `BootClock`).
private func simTestBootTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_BOOTTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Every event a source delivered, with the boot time at which the handler saw it.
private final class SimEventLog: Sendable {
    struct Entry: Sendable {
        var event: SourceEvent
        var arrival: Double
    }

    private let entries = Lock<[Entry]>([])

    /// One burst, every event stamped with its arrival.
    func append(contentsOf burst: [SourceEvent]) {
        let arrival = simTestBootTime()
        entries.withLock { entries in
            for event in burst { entries.append(Entry(event: event, arrival: arrival)) }
        }
    }

    var all: [Entry] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }

    func samples(_ kind: SensorKind) -> [Sample] {
        all.compactMap { entry in
            if case .sample(let s) = entry.event, s.kind == kind { return s }
            return nil
        }
    }

    /// Indices (in delivery order) of the samples of `kind`.
    func sampleIndices(_ kind: SensorKind) -> [Int] {
        all.indices.filter { i in
            if case .sample(let s) = all[i].event, s.kind == kind { return true }
            return false
        }
    }

    func availability(_ kind: SensorKind) -> [(index: Int, value: SensorAvailability)] {
        let entries = all
        return entries.indices.compactMap { i in
            if case .availability(let k, let a) = entries[i].event, k == kind { return (i, a) }
            return nil
        }
    }
}

/// Sleeps without blocking a thread of the shared test pool (tests run in parallel).
private func sleepSeconds(_ seconds: Double) async throws {
    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
}

/// `sim:` played in real time. Timing bounds are generous: the machine may be loaded.
///
/// Expected readings for the first 2 s (script step "rest", face up, identity attitude):
/// accelerometer = gravity-vector (0, 0, −1) G + noise (σ 0.002 G);
/// gyroscope = 0 + bias (0.004, −0.003, 0.002) rad/s + noise (σ 0.002 rad/s);
/// magnetometer = earth field (20, 0, −44) + hard iron (6, −4, 3) = (26, −4, −41) µT + noise (σ 0.3 µT).
@Suite("Simulated source (sim:)")
struct SimulatedSourceTests {
    /// The standard script starts with 2 s of rest, but a loaded machine can stretch a test's
    /// sleeps past that: these tests play a script that rests face up throughout, so the
    /// expected readings above hold whenever a sample is taken.
    static func restingSource() -> SimulatedSource {
        SimulatedSource(imu: SimulatedIMU(script: MotionScript(steps: [
            MotionScript.Step(name: "rest", pose: .identity, turn: 0, hold: 3600),
        ])))
    }

    static func expectStrictlyIncreasing(_ samples: [Sample], spacing period: Double,
                                         sourceLocation: SourceLocation = #_sourceLocation) {
        for (a, b) in zip(samples, samples.dropFirst()) {
            // Timestamps are start + k × period: consecutive ones differ by exactly one period
            // (up to rounding at ~10³ s boot times, ≈ 1e-12 s).
            #expect(b.timestamp > a.timestamp, "\(b.timestamp) after \(a.timestamp)", sourceLocation: sourceLocation)
            #expect(abs((b.timestamp - a.timestamp) - period) < 1e-9,
                    "spacing \(b.timestamp - a.timestamp), expected \(period)", sourceLocation: sourceLocation)
        }
    }

    static func expectNear(_ v: Vector3, _ expected: Vector3, within tolerance: Double,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(v.x - expected.x) < tolerance && abs(v.y - expected.y) < tolerance && abs(v.z - expected.z) < tolerance,
                "got \(v), expected \(expected) ± \(tolerance)", sourceLocation: sourceLocation)
    }

    @Test("Accelerometer at 100 Hz and gyroscope at 50 Hz for 0.6 s")
    func accelerometerAndGyroscope() async throws {
        let source = Self.restingSource()
        #expect(source.uri == "sim:")
        let queue = DispatchQueue(label: "SimulatedSourceTests.delivery")
        let log = SimEventLog()

        let before = simTestBootTime()
        try source.start(SourceRequest([.accelerometer: 0.01, .gyroscope: 0.02]), queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.6)
        source.stop()
        let after = simTestBootTime()
        // Run whatever was queued before stop() returned, then nothing more may come.
        queue.sync {}
        let countAtStop = log.count
        try await sleepSeconds(0.2)
        queue.sync {}
        #expect(log.count == countAtStop, "\(log.count - countAtStop) events arrived after stop() returned")

        let accel = log.samples(.accelerometer)
        let gyro = log.samples(.gyroscope)
        #expect(log.samples(.magnetometer).isEmpty, "magnetometer was not requested")
        // Present but not requested: announced once, idle.
        #expect(log.availability(.magnetometer).map(\.value) == [SensorAvailability(isAvailable: true, reason: "simulated IMU, idle")])

        // The source emits every grid point that is due, so the counts follow the time that
        // really passed (a loaded machine stretches the 0.6 s sleep): about elapsed / period,
        // give or take the first point and the last, partly elapsed period.
        let elapsed = after - before
        #expect(elapsed >= 0.6)
        #expect(Double(accel.count) >= 0.6 / 0.01 - 2 && Double(accel.count) <= elapsed / 0.01 + 2,
                "\(accel.count) accelerometer samples in \(elapsed) s")
        #expect(Double(gyro.count) >= 0.6 / 0.02 - 2 && Double(gyro.count) <= elapsed / 0.02 + 2,
                "\(gyro.count) gyroscope samples in \(elapsed) s")

        // Each kind is announced available before its first sample.
        for kind in [SensorKind.accelerometer, .gyroscope] {
            let announcements = log.availability(kind)
            #expect(announcements.count == 1)
            let first = try #require(announcements.first)
            #expect(first.value.isAvailable)
            #expect(first.value.mode == .polling)
            let firstSample = try #require(log.sampleIndices(kind).first)
            #expect(first.index < firstSample, "\(kind) sample delivered before its availability")
        }

        Self.expectStrictlyIncreasing(accel, spacing: 0.01)
        Self.expectStrictlyIncreasing(gyro, spacing: 0.02)

        // Face up at rest: (0, 0, −1) G; 0.02 G is 10σ of the accelerometer noise.
        for sample in accel.prefix(10) {
            Self.expectNear(sample.vector, Vector3(0, 0, -1), within: 0.02)
        }
        // At rest the gyroscope reads its bias (0.004, −0.003, 0.002); 0.02 rad/s is 10σ.
        for sample in gyro.prefix(10) {
            Self.expectNear(sample.vector, Vector3(0.004, -0.003, 0.002), within: 0.02)
        }

        // Boot-clock timestamps, inside the test's own readings around start and stop.
        for sample in accel + gyro {
            #expect(sample.timestamp >= before && sample.timestamp <= after,
                    "\(sample.kind) timestamp \(sample.timestamp) outside [\(before), \(after)]")
        }
    }

    @Test("A sample is never stamped later than the boot time at which it is delivered")
    func timestampsNotInTheFuture() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.future")
        let log = SimEventLog()
        try source.start(SourceRequest([.accelerometer: 0.05]), queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.3)
        source.stop()
        queue.sync {}
        // A reading cannot be timestamped after it was taken; the handler runs after the reading.
        let late = log.all.compactMap { entry -> (Double, Double)? in
            guard case .sample(let s) = entry.event, s.timestamp > entry.arrival else { return nil }
            return (s.timestamp, entry.arrival)
        }
        #expect(late.isEmpty, "\(late.count) of \(log.samples(.accelerometer).count) samples stamped after delivery, e.g. stamp − arrival = \(late.first.map { $0.0 - $0.1 } ?? 0) s")
    }

    @Test("with a latency, samples come in one burst per latency, every grid point in it, in order")
    func batchedBursts() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.batched")
        let log = SimEventLog()
        var request = try SourceRequest([.accelerometer: 0.01, .gyroscope: 0.01])
        request.latencies = [.accelerometer: 0.25, .gyroscope: 0.25]
        let started = simTestBootTime()
        try source.start(request, queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(1.2)
        source.stop()
        let ran = simTestBootTime() - started
        queue.sync {}
        let samples = log.all.filter { if case .sample = $0.event { true } else { false } }
        // One arrival time per burst: the first at once, then one every 0.25 s (a loaded
        // machine may sleep longer than asked: counted over the time it really ran; one late
        // wake-up shortens the gap to the next, so the gaps are judged by their median).
        let bursts = Set(samples.map(\.arrival)).sorted()
        #expect(bursts.count >= 4 && Double(bursts.count) <= ran / 0.25 + 1.5, "\(bursts.count) bursts in \(ran) s")
        let gaps = zip(bursts, bursts.dropFirst()).map { $1 - $0 }.sorted()
        #expect(gaps.count >= 3 && gaps[gaps.count / 2] > 0.2, "gaps between bursts: \(gaps)")
        for kind in [SensorKind.accelerometer, .gyroscope] {
            let times = log.samples(kind).map(\.timestamp)
            #expect(times.count >= 100, "\(kind): \(times.count)")
            #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.01) < 1e-9 }, "\(kind): every grid point, in order")
        }
    }

    @Test("ending a latency mid-batch loses nothing: the batch due comes with the first tick at the new pace")
    func latencyEndsMidBatch() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.batchEnds")
        let log = SimEventLog()
        var batched = try SourceRequest([.accelerometer: 0.01])
        batched.latencies = [.accelerometer: 0.5]
        try source.start(batched, queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.3)
        try source.update(SourceRequest([.accelerometer: 0.01]))
        try await sleepSeconds(0.3)
        source.stop()
        queue.sync {}
        let times = log.samples(.accelerometer).map(\.timestamp)
        #expect(times.count >= 50, "\(times.count)")
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.01) < 1e-9 }, "every grid point, in order")
    }

    @Test("update() adds the magnetometer while the accelerometer keeps its grid")
    func updateAddsMagnetometer() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.update")
        let log = SimEventLog()
        try source.start(SourceRequest([.accelerometer: 0.02]), queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.2)
        queue.sync {}
        let beforeUpdate = log.count
        let updated = simTestBootTime()
        try source.update(SourceRequest([.accelerometer: 0.02, .magnetometer: 0.05]))
        try await sleepSeconds(0.35)
        source.stop()
        let stopped = simTestBootTime()
        queue.sync {}

        // No magnetometer before the update.
        #expect(log.sampleIndices(.magnetometer).allSatisfy { $0 >= beforeUpdate })
        // Idle at start, then read.
        let magAvailability = log.availability(.magnetometer)
        #expect(magAvailability.map(\.value.mode) == [nil, .polling])
        #expect(magAvailability.allSatisfy { $0.value.isAvailable })
        if let announced = magAvailability.last?.index, let first = log.sampleIndices(.magnetometer).first {
            #expect(announced < first)
        }
        // The accelerometer was not re-announced nor switched off: its period did not change.
        #expect(log.availability(.accelerometer).count == 1)

        // 0.35 s (or more, on a loaded machine) at 0.05 s: about 7 magnetometer samples.
        let mag = log.samples(.magnetometer)
        let window = stopped - updated
        #expect(Double(mag.count) >= 0.35 / 0.05 - 2 && Double(mag.count) <= window / 0.05 + 2,
                "\(mag.count) magnetometer samples in \(window) s")
        for sample in mag {
            // Rest, face up: (20, 0, −44) + (6, −4, 3) = (26, −4, −41) µT; 2 µT ≈ 6.7σ.
            Self.expectNear(sample.vector, Vector3(26, -4, -41), within: 2)
        }
        Self.expectStrictlyIncreasing(mag, spacing: 0.05)

        let accel = log.samples(.accelerometer)
        #expect(accel.count >= 10, "\(accel.count) accelerometer samples in 0.55 s at 0.02 s")
        Self.expectStrictlyIncreasing(accel, spacing: 0.02)
    }

    @Test("update() dropping a kind reports it idle and stops its samples")
    func updateRemovesKind() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.remove")
        let log = SimEventLog()
        try source.start(SourceRequest([.accelerometer: 0.02, .gyroscope: 0.02]), queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.15)
        try source.update(SourceRequest([.accelerometer: 0.02]))
        try await sleepSeconds(0.15)
        source.stop()
        queue.sync {}

        let gyroAvailability = log.availability(.gyroscope)
        #expect(gyroAvailability.map(\.value.mode) == [.polling, nil])
        #expect(gyroAvailability.last?.value == SensorAvailability(isAvailable: true, reason: "simulated IMU, idle"))
        let off = try #require(gyroAvailability.last?.index)
        #expect(log.sampleIndices(.gyroscope).allSatisfy { $0 < off }, "gyroscope samples after it was switched off")
        #expect(log.sampleIndices(.accelerometer).contains { $0 > off }, "the accelerometer kept running")
    }

    @Test("a slate has no base: a base accelerometer asked for, dropped and asked for again stays unavailable and is never read")
    func noBaseWhenAskedFor() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.noBase")
        let log = SimEventLog()
        // What the pipeline asks for while a posture subscriber comes, leaves and comes back.
        let posture = try SourceRequest([.accelerometer: 0.02, .baseAccelerometer: 0.02])
        try source.start(posture, queue: queue) { log.append(contentsOf: $0) }
        try await sleepSeconds(0.1)
        try source.update(SourceRequest([.accelerometer: 0.02]))
        try await sleepSeconds(0.1)
        try source.update(posture)
        try await sleepSeconds(0.1)
        source.stop()
        queue.sync {}

        let base = log.availability(.baseAccelerometer).map(\.value)
        #expect(!base.isEmpty && base.allSatisfy { !$0.isAvailable }, "\(base)")
        #expect(log.samples(.baseAccelerometer).isEmpty)
        #expect(log.samples(.accelerometer).count >= 5, "the accelerometer was read")
    }

    @Test("A rate change keeps accelerometer timestamps strictly increasing")
    func rateChangeKeepsOrder() async throws {
        let source = Self.restingSource()
        let queue = DispatchQueue(label: "SimulatedSourceTests.rate")
        let log = SimEventLog()
        try source.start(SourceRequest([.accelerometer: 0.1]), queue: queue) { log.append(contentsOf: $0) }
        // Switch shortly after a tick (the first fires at start), when the 0.1 s grid is furthest ahead.
        try await sleepSeconds(0.12)
        try source.update(SourceRequest([.accelerometer: 0.01]))
        try await sleepSeconds(0.15)
        source.stop()
        queue.sync {}

        let accel = log.samples(.accelerometer)
        #expect(accel.count >= 4)
        // MotionSource: "Samples of one sensor arrive in timestamp order."
        for (a, b) in zip(accel, accel.dropFirst()) {
            #expect(b.timestamp > a.timestamp, "accelerometer timestamp \(b.timestamp) after \(a.timestamp) (rate change 0.1 → 0.01 s)")
        }
    }
}
