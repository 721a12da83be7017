import Dispatch
import Foundation
import Glibc
import MotionCore
import MotionIIO
import Testing
import MotionSync

/// CLOCK_BOOTTIME in seconds, read by the test itself (not through `BootClock`).
private func replayTestBootTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_BOOTTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Every event a source delivered, with the boot time at which the handler saw it.
private final class ReplayEventLog: Sendable {
    private let entries = Lock<[(event: SourceEvent, arrival: Double)]>([])

    /// One burst, every event stamped with its arrival.
    func append(contentsOf burst: [SourceEvent]) {
        let arrival = replayTestBootTime()
        entries.withLock { entries in
            for event in burst { entries.append((event, arrival)) }
        }
    }

    var events: [SourceEvent] { entries.withLock { $0.map(\.event) } }
    var all: [(event: SourceEvent, arrival: Double)] { entries.withLock { $0 } }

    var samples: [Sample] {
        events.compactMap { if case .sample(let s) = $0 { return s } else { return nil } }
    }

    var availabilities: [(kind: SensorKind, value: SensorAvailability)] {
        events.compactMap { if case .availability(let k, let a) = $0 { return (k, a) } else { return nil } }
    }

    /// True once every requested kind has been reported finished (kinds the trace has no
    /// columns for are reported unavailable from the start, and never finish).
    func finished(_ kinds: Set<SensorKind>) -> Bool {
        kinds.isSubset(of: availabilities.filter { !$0.value.isAvailable && $0.value.reason.hasSuffix(" finished") }.map(\.kind))
    }
}

/// What a replay's end handler was given, with the number of events delivered before it.
private final class ReplayEndings: Sendable {
    private let entries = Lock<[(summary: ReplaySource.Summary, eventsBefore: Int)]>([])

    func append(_ summary: ReplaySource.Summary, eventsBefore: Int = 0) { entries.withLock { $0.append((summary, eventsBefore)) } }
    var all: [(summary: ReplaySource.Summary, eventsBefore: Int)] { entries.withLock { $0 } }
    var last: ReplaySource.Summary? { all.last?.summary }
}

/// A temporary directory removed when the value goes away.
private final class TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ReplaySourceTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// `replay:FILE.csv`: a trace played as if it were hardware.
///
/// The synthetic trace has 50 rows at 100 Hz from t = 10.00 s, every row at rest:
/// gyr (0.1, 0, 0) rad/s; acc (0, 0, 9.80665) m/s² inertial-navigation sign → −acc / 9.80665 =
/// (0, 0, −1) G; mag (20, 0, −44) µT.
@Suite("Replay source (replay:FILE.csv)")
struct ReplaySourceTests {
    static let rows = 50
    static let g = 9.80665

    /// Row i has t = 10 + i/100, printed with two decimals (10.00, 10.01, …, 10.49).
    static func traceText(withMagnetometer: Bool = true) -> String {
        var lines = [withMagnetometer ? "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"
                                      : "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for i in 0..<rows {
            let t = String(format: "10.%02d", i)
            lines.append(withMagnetometer ? "\(t),0.1,0,0,0,0,9.80665,20,0,-44" : "\(t),0.1,0,0,0,0,9.80665")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func expectNear(_ v: Vector3, _ expected: Vector3, within tolerance: Double = 1e-12,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(v.x - expected.x) < tolerance && abs(v.y - expected.y) < tolerance && abs(v.z - expected.z) < tolerance,
                "got \(v), expected \(expected)", sourceLocation: sourceLocation)
    }

    /// Runs `source` with `kinds` until every kind is reported unavailable (or `timeout`).
    private static func play(_ source: ReplaySource, _ kinds: [SensorKind], timeout: Double = 3) async throws -> ReplayEventLog {
        let queue = DispatchQueue(label: "ReplaySourceTests.delivery")
        let log = ReplayEventLog()
        try source.start(SourceRequest(kinds, period: 0.01), queue: queue) { log.append(contentsOf: $0) }
        let deadline = replayTestBootTime() + timeout
        while !log.finished(Set(kinds)) && replayTestBootTime() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        source.stop()
        queue.sync {}
        return log
    }

    @Test("update() announces a newly requested kind before its samples")
    func updateAnnounces() async throws {
        let dir = try TempDirectory()
        // 2 minutes long, so it is still playing however late the update comes on a loaded
        // machine (CI once took 12 s for the two 100 ms sleeps while CPU-bound tests ran).
        let rows = (0..<12_000).map { String(format: "%.2f,0.1,0,0,0,0,9.80665", Double($0) / 100) }
        let path = try dir.write("long.csv", (["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"] + rows).joined(separator: "\n") + "\n")
        let source = try ReplaySource(path: path, pacing: .realtime)
        let queue = DispatchQueue(label: "ReplaySourceTests.update")
        let log = ReplayEventLog()
        try source.start(SourceRequest([.accelerometer], period: 0.01), queue: queue) { log.append(contentsOf: $0) }
        try await Task.sleep(for: .milliseconds(100))
        try source.update(SourceRequest([.accelerometer, .gyroscope], period: 0.01))
        try await Task.sleep(for: .milliseconds(100))
        source.stop()
        queue.sync {}
        let events = log.events
        let announced = events.firstIndex { if case .availability(.gyroscope, let a) = $0 { return a.isAvailable } else { return false } }
        let firstGyro = events.firstIndex { if case .sample(let s) = $0 { return s.kind == .gyroscope } else { return false } }
        let announcedAt = try #require(announced)
        if let firstGyro { #expect(announcedAt < firstGyro) }
    }

    @Test("As fast as possible: 150 samples with the trace's timestamps, then finished")
    func asFastAsPossibleAllKinds() async throws {
        let dir = try TempDirectory()
        let path = try dir.write("trace.csv", Self.traceText())
        let source = try ReplaySource(path: path, pacing: .asFastAsPossible)
        #expect(source.uri == "replay:\(path)")
        let log = try await Self.play(source, [.accelerometer, .gyroscope, .magnetometer])
        let events = log.events

        // 3 available + light, proximity, base accelerometer and base gyroscope absent + 50 × 3
        // samples + 3 finished = 160 events.
        #expect(events.count == 160)
        let available = events.prefix(3).compactMap { e -> SensorKind? in
            if case .availability(let k, let a) = e, a.isAvailable { return k } else { return nil }
        }
        #expect(Set(available) == [.accelerometer, .gyroscope, .magnetometer])

        let samples = log.samples
        #expect(samples.count == 150)
        for (n, sample) in samples.enumerated() {
            let row = n / 3
            // Per row: gyroscope, accelerometer, magnetometer.
            let kind: SensorKind = [.gyroscope, .accelerometer, .magnetometer][n % 3]
            #expect(sample.kind == kind, "sample \(n)")
            // The trace's own time base: 10.00, 10.01, … (parsing "10.07" gives the double nearest 10.07).
            #expect(abs(sample.timestamp - (10 + Double(row) / 100)) < 1e-9, "sample \(n): \(sample.timestamp)")
            switch kind {
            case .gyroscope: Self.expectNear(sample.vector, Vector3(0.1, 0, 0))
            case .accelerometer: Self.expectNear(sample.vector, Vector3(0, 0, -1))  // −(0, 0, 9.80665) / 9.80665
            case .magnetometer: Self.expectNear(sample.vector, Vector3(20, 0, -44))
            case .light, .proximity, .baseAccelerometer, .baseGyroscope: Issue.record("a trace has no \(kind) columns")
            }
        }

        let finished = events.suffix(3).compactMap { e -> (SensorKind, SensorAvailability)? in
            if case .availability(let k, let a) = e { return (k, a) } else { return nil }
        }
        #expect(finished.count == 3)
        #expect(Set(finished.map(\.0)) == [.accelerometer, .gyroscope, .magnetometer])
        for (kind, availability) in finished {
            #expect(!availability.isAvailable, "\(kind)")
            #expect(availability.reason == "replay of replay:\(path) finished")
        }
    }

    @Test("Only the requested kinds are emitted; every kind in the trace is announced, idle until requested")
    func onlyAccelerometer() async throws {
        let dir = try TempDirectory()
        let path = try dir.write("trace.csv", Self.traceText())
        let log = try await Self.play(ReplaySource(path: path, pacing: .asFastAsPossible), [.accelerometer])
        let samples = log.samples
        #expect(samples.count == 50)
        #expect(samples.allSatisfy { $0.kind == .accelerometer })
        let announced = log.availabilities.map { "\($0.kind) \($0.value.isAvailable) \($0.value.reason)" }
        #expect(announced == [
            "accelerometer true replaying replay:\(path)",
            "gyroscope true in replay:\(path), not requested",
            "magnetometer true in replay:\(path), not requested",
            "light false replay:\(path) has no light columns",
            "proximity false replay:\(path) has no proximity columns",
            "baseAccelerometer false replay:\(path) has no baseAccelerometer columns",
            "baseGyroscope false replay:\(path) has no baseGyroscope columns",
            "accelerometer false replay of replay:\(path) finished",
            "gyroscope false replay of replay:\(path) finished",
            "magnetometer false replay of replay:\(path) finished",
        ])
        #expect(abs((samples.first?.timestamp ?? 0) - 10.00) < 1e-9)
        #expect(abs((samples.last?.timestamp ?? 0) - 10.49) < 1e-9)
    }

    @Test("A trace without magnetometer columns reports the magnetometer unavailable")
    func missingMagnetometerColumns() throws {
        let dir = try TempDirectory()
        let path = try dir.write("nomag.csv", Self.traceText(withMagnetometer: false))
        let source = try ReplaySource(path: path, pacing: .asFastAsPossible)
        let queue = DispatchQueue(label: "ReplaySourceTests.nomag")
        let log = ReplayEventLog()
        try source.start(SourceRequest([.accelerometer, .magnetometer], period: 0.01), queue: queue) { log.append(contentsOf: $0) }
        // As fast as possible: everything is queued before start() returns.
        queue.sync {}
        source.stop()
        queue.sync {}

        let mag = log.availabilities.filter { $0.kind == .magnetometer }
        #expect(mag.count == 1)
        #expect(mag.first?.value.isAvailable == false)
        let reason = mag.first?.value.reason ?? ""
        #expect(reason.contains("magnetometer"), "\(reason)")
        #expect(reason.contains(path), "\(reason)")
        #expect(log.samples.allSatisfy { $0.kind == .accelerometer })
        #expect(log.samples.count == 50)
    }

    @Test("Realtime: rebased onto the boot clock, spacing kept, ≈ 0.49 s for 50 rows")
    func realtime() async throws {
        let dir = try TempDirectory()
        let path = try dir.write("trace.csv", Self.traceText())
        let source = try ReplaySource(path: path, pacing: .realtime)
        let start = replayTestBootTime()
        let log = try await Self.play(source, [.accelerometer], timeout: 4)
        let samples = log.samples
        #expect(samples.count == 50)
        guard let first = samples.first, let last = log.all.last(where: { if case .sample = $0.event { true } else { false } }) else {
            Issue.record("no samples")
            return
        }
        // Rebased: the first row plays at the boot time of start().
        #expect(abs(first.timestamp - start) < 0.1, "first timestamp \(first.timestamp), start \(start)")
        // Spacing of the trace (0.01 s) is preserved.
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(abs((b.timestamp - a.timestamp) - 0.01) < 1e-6, "spacing \(b.timestamp - a.timestamp)")
        }
        // Rows 10.00 … 10.49: the last is due 0.49 s after the first.
        let duration = last.arrival - start
        #expect(duration > 0.3 && duration < 3, "50 rows took \(duration) s")
        // Paced: no sample arrives before its (boot-clock) timestamp.
        for entry in log.all {
            if case .sample(let s) = entry.event {
                #expect(s.timestamp <= entry.arrival + 1e-6, "sample stamped \(s.timestamp) arrived at \(entry.arrival)")
            }
        }
    }

    @Test("A missing file is an error naming the path")
    func missingFile() throws {
        let dir = try TempDirectory()
        let path = dir.url.appendingPathComponent("does-not-exist.csv").path
        do {
            _ = try ReplaySource(path: path, pacing: .asFastAsPossible)
            Issue.record("a missing file was accepted")
        } catch {
            guard case .trace(let errorPath, _) = error else {
                Issue.record("expected .trace, got \(error)")
                return
            }
            #expect(errorPath == path)
            #expect(error.description.contains(path), "\(error)")
        }
    }

    @Test("A malformed row after the first is skipped, named in the summary by its line; a malformed first row is an error")
    func malformedRow() async throws {
        let dir = try TempDirectory()
        // Header is line 1, rows 10.00 and 10.01 are lines 2 and 3: the bad row is line 4.
        let text = """
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z
            10.00,0.1,0,0,0,0,9.80665
            10.01,0.1,0,0,0,0,9.80665
            10.02,0.1,abc,0,0,0,9.80665
            10.03,0.1,0,0,0,0,9.80665

            """
        let path = try dir.write("bad.csv", text)
        let source = try ReplaySource(path: path, pacing: .asFastAsPossible)
        let summary = ReplayEndings()
        source.whenEnded { summary.append($0) }
        let log = try await Self.play(source, [.accelerometer])
        #expect(log.samples.map(\.timestamp) == [10.00, 10.01, 10.03])
        let ended = try #require(summary.last)
        #expect(ended.rows == 3 && ended.malformedRows == 1 && ended.rowsWithoutReadings == 0 && ended.discontinuities == 0)
        #expect(ended.problems == ["line 4: gyr_y 'abc' is not a number — row skipped"])

        let first = try dir.write("badfirst.csv", "t,gyr_x,gyr_y,gyr_z\n10.00,0.1,abc,0\n10.01,0.1,0,0\n")
        do {
            _ = try ReplaySource(path: first, pacing: .asFastAsPossible)
            Issue.record("a trace whose first row is malformed was accepted")
        } catch {
            #expect(error.description.contains(first), "\(error)")
            #expect(error.description.contains("line 2"), "\(error)")
            #expect(error.description.contains("gyr_y"), "\(error)")
        }
    }

    @Test("The end of the trace: the handler runs once, on the delivery queue, after the last sample and the unavailability reports")
    func endedAfterLastSample() async throws {
        let dir = try TempDirectory()
        let path = try dir.write("trace.csv", Self.traceText())
        let source = try ReplaySource(path: path, pacing: .realtime)
        let queue = DispatchQueue(label: "ReplaySourceTests.ended")
        let log = ReplayEventLog()
        let endings = ReplayEndings()
        source.whenEnded { summary in
            dispatchPrecondition(condition: .onQueue(queue))
            endings.append(summary, eventsBefore: log.events.count)
        }
        try source.start(SourceRequest([.accelerometer, .gyroscope], period: 0.01), queue: queue) { log.append(contentsOf: $0) }
        let deadline = replayTestBootTime() + 10
        while endings.all.isEmpty && replayTestBootTime() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        source.stop()
        queue.sync {}
        let all = endings.all
        #expect(all.count == 1)
        let ending = try #require(all.first)
        // 3 available + light, proximity, base accelerometer and base gyroscope absent + 50 × 2
        // samples + 3 finished.
        #expect(ending.eventsBefore == 110 && log.events.count == 110)
        #expect(ending.summary.rows == 50)
        #expect(ending.summary.description == "the replay of replay:\(path) ended (end of the trace): 50 rows replayed")
    }

    @Test("Rows without a finite reading are skipped and counted; time jumps over 10 s or back are replayed as 0.1 s pauses")
    func skippedRowsAndTimeJumps() async throws {
        let dir = try TempDirectory()
        let text = """
            t,acc_x,acc_y,acc_z
            1.00,0,0,9.80665
            1.01,nan,nan,nan
            1.02,0,0,9.80665
            20.00,0,0,9.80665
            20.01,0,nan,9.80665
            2.00,0,0,9.80665
            2.01,0,0,9.80665
            1e300,0,0,9.80665

            """
        let path = try dir.write("jumps.csv", text)
        let source = try ReplaySource(path: path, pacing: .asFastAsPossible)
        let summary = ReplayEndings()
        source.whenEnded { summary.append($0) }
        let log = try await Self.play(source, [.accelerometer])
        let times = log.samples.map(\.timestamp)
        // 1.00, 1.02 as in the trace; 20.00 is 18.98 s later: a 0.1 s pause; 2.00 goes back: another; 1e300: another.
        let expected = [1.00, 1.02, 1.12, 1.22, 1.23, 1.33]
        #expect(times.count == expected.count && zip(times, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(times)")
        let ended = try #require(summary.last)
        #expect(ended.rows == 6 && ended.rowsWithoutReadings == 2 && ended.discontinuities == 3 && ended.malformedRows == 0)
        #expect(ended.problems.count == 5)
        #expect(ended.problems.first == "line 3: no finite sensor reading — row skipped")
        #expect(ended.problems[1].hasPrefix("line 5: the time jumps 18.9") && ended.problems[1].hasSuffix("s from 1.02 to 20.0: replayed as a 0.1 s pause"),
                "\(ended.problems)")
        #expect(ended.problems[3] == "line 7: the time goes back from 20.0 to 2.0: replayed as a 0.1 s pause", "\(ended.problems)")
    }

    @Test("As fast as possible, a long trace goes in batches the delivery queue takes, every row in order")
    func fastInBatches() async throws {
        let dir = try TempDirectory()
        let rows = 5 * ReplaySource.fastBatch + 7
        let lines = (0..<rows).map { "\(Double($0) / 100),0.1,0,0,0,0,9.80665,20,0,-44" }
        let path = try dir.write("long.csv", (["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"] + lines).joined(separator: "\n") + "\n")
        let log = try await Self.play(ReplaySource(path: path, pacing: .asFastAsPossible), [.accelerometer, .gyroscope, .magnetometer], timeout: 30)
        #expect(log.samples.count == 3 * rows)
        let times = log.samples.filter { $0.kind == .accelerometer }.map(\.timestamp)
        #expect(times.count == rows)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(log.finished([.accelerometer, .gyroscope, .magnetometer]))
    }

    @Test("A header-only file has no records")
    func headerOnly() throws {
        let dir = try TempDirectory()
        let path = try dir.write("empty.csv", "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n")
        do {
            _ = try ReplaySource(path: path, pacing: .asFastAsPossible)
            Issue.record("a header-only trace was accepted")
        } catch {
            #expect(error.description.contains("no records"), "\(error)")
            #expect(error.description.contains(path), "\(error)")
        }
    }

    // MARK: - Real data

    /// Package root: this file is <root>/Tests/MotionIIOTests/ReplaySourceTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let broadTrial = packageRoot
        .appendingPathComponent("../shared/datasets/broad/dec3_95.2hz/05_undisturbed_slow_rotation_with_breaks_B.csv")
        .standardizedFileURL.path

    // BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, 'BROAD—A Benchmark for Robust
    // Inertial Orientation Estimation', Data 6(7):72, 2021, doi:10.3390/data6070072, CC BY 4.0;
    // a modified CSV subset
    @Test("BROAD trial 05 replays all 19,737 accelerometer readings",
          .enabled(if: FileManager.default.fileExists(atPath: ReplaySourceTests.broadTrial),
                   "BROAD dataset not found beside the clone (../shared/datasets/broad)"))
    func broadSlowRotation() async throws {
        let source = try ReplaySource(path: Self.broadTrial, pacing: .asFastAsPossible)
        // README.md of the subset: 19,737 rows in this file.
        #expect(source.kinds == [.accelerometer, .gyroscope, .magnetometer])
        let log = try await Self.play(source, [.accelerometer], timeout: 10)
        let samples = log.samples
        #expect(samples.count == 19_737)
        #expect(samples.allSatisfy { $0.kind == .accelerometer })
        let first = try #require(samples.first)
        // First row: t = 0.00700, acc = (0.0804773, 0.00567821, 9.82803) m/s² →
        // −acc / 9.80665 = (−0.008206400758, −0.000579016279, −1.002180153263) G.
        #expect(abs(first.timestamp - 0.007) < 1e-12)
        Self.expectNear(first.vector, Vector3(-0.0804773, -0.00567821, -9.82803) / Self.g, within: 1e-12)
        Self.expectNear(first.vector, Vector3(-0.008206400758, -0.000579016279, -1.002180153263), within: 1e-11)
        // Last row: t = 207.23500.
        #expect(abs((samples.last?.timestamp ?? 0) - 207.235) < 1e-9)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }
}
