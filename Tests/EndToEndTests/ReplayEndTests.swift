import Foundation
@testable import TestSupport
import Testing

/// `motiond --source replay:FILE` when the trace ends before `--count`, holds no finite
/// reading, jumps in time, or is huge: the daemon run as a user would.
@Suite("motiond replay: the end of the trace, bad rows, time jumps, huge traces")
struct ReplayEndTests {
    static let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"

    /// `motiond --source replay:PATH --print-samples --count 10 --no-config` (plus `extra`),
    /// which must end by itself (a hang is cut off after 60 s and fails).
    static func printSamples(_ text: String, _ extra: [String] = []) async throws -> ProcessOutput {
        let (directory, path) = try MotionCtlCommandsTests.write(text, named: "trace.csv")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await Emulation.run([Emulation.motiond, "--source", "replay:\(path)", "--print-samples", "--count", "10", "--no-config",
                                        "--interval", "0.01", "--log-level", "info"] + extra, timeout: 60)
    }

    @Test("a one-row trace with --count 10: exit 0 after its 2 samples, saying the trace ended and how many were printed")
    func oneRow() async throws {
        let run = try await Self.printSamples(Self.header + "\n0,0.1,0,0,0,0,9.80665\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("gyroscope") && run.stdout.contains("accelerometer"), "\(run.stdout)")
        #expect(run.stderr.contains("ended (end of the trace): 1 rows replayed; printed 2 samples"), "\(run.stderr)")
    }

    @Test("an all-NaN trace: nothing printed, the rows skipped with a counted warning, exit 0")
    func allNaN() async throws {
        let rows = (0..<3).map { "\(Double($0) / 100),nan,nan,nan,nan,nan,nan" }
        let run = try await Self.printSamples(([Self.header] + rows).joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("line 2: no finite sensor reading — row skipped"), "\(run.stderr)")
        #expect(run.stderr.contains("0 rows replayed, 3 rows without a finite reading skipped; printed 0 samples"), "\(run.stderr)")
    }

    @Test("a 1e300 s gap and a time going back are replayed as short pauses: every row printed, timestamps increasing, exit 0")
    func timeJumps() async throws {
        let times = ["0", "0.01", "1e300", "5", "5.01"]
        let run = try await Self.printSamples(([Self.header] + times.map { "\($0),0.1,0,0,0,0,9.80665" }).joined(separator: "\n") + "\n",
                                              ["--json", "--sensors", "accelerometer"])
        #expect(run.status == 0, "\(run.stderr)")
        let samples = run.samples("accelerometer")
        #expect(samples.count == 5, "\(run.stdout)")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // Replayed pauses of 0.1 s where the trace jumps.
        let gaps = zip(samples, samples.dropFirst()).map { $1.timestamp - $0.timestamp }
        #expect(gaps.count == 4 && abs(gaps[1] - 0.1) < 1e-6 && abs(gaps[2] - 0.1) < 1e-6, "\(gaps)")
        #expect(run.stderr.contains("line 4: the time jumps 1e+300 s"), "\(run.stderr)")
        #expect(run.stderr.contains("line 5: the time goes back from 1e+300 to 5.0"), "\(run.stderr)")
        #expect(run.stderr.contains("5 rows replayed, 2 time jumps replayed as 0.1 s pauses; printed 5 samples"), "\(run.stderr)")
    }

    @Test("a trace whose times start at 1e300 plays in real time on the boot clock, spacing kept, without losing the timestamps to rounding")
    func hugeFirstTime() async throws {
        let start = Emulation.bootTime()
        let run = try await Self.printSamples(([Self.header] + ["1e300", "1e300"].map { "\($0),0.1,0,0,0,0,9.80665" }).joined(separator: "\n") + "\n",
                                              ["--json", "--sensors", "accelerometer"])
        #expect(run.status == 0, "\(run.stderr)")
        let samples = run.samples("accelerometer")
        #expect(samples.count == 2, "\(run.stdout)")
        #expect(samples.allSatisfy { $0.timestamp >= start && $0.timestamp <= Emulation.bootTime() }, "\(samples.map(\.timestamp)) from \(start)")
    }

    @Test("a malformed row in the middle is skipped with a warning naming its line; the rest is replayed")
    func malformedRow() async throws {
        let text = [Self.header, "0,0.1,0,0,0,0,9.80665", "0.01,0.1,abc,0,0,0,9.80665", "0.02,0.1,0,0,0,0,9.80665"].joined(separator: "\n")
        let run = try await Self.printSamples(text + "\n", ["--sensors", "accelerometer"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("line 3: gyr_y 'abc' is not a number — row skipped"), "\(run.stderr)")
        #expect(run.stderr.contains("2 rows replayed, 1 malformed rows skipped; printed 2 samples"), "\(run.stderr)")
    }

    @Test("a 1,000,000-row trace with --replay-fast --count 10: read as a stream, so it finishes with a peak RSS well under 100 MB")
    func hugeTrace() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huge.csv").path
        // Written by a child while this test suspends: built here, the million rows held one of
        // the test process's two cooperative threads for 10–20 s (a debug build on a loaded
        // machine), and the tests waiting for a thread missed their daemons' hellos.
        let write = "import sys\nwith open(sys.argv[1], 'w') as f:\n"
            + "    f.write('t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\\n')\n"
            + "    f.writelines(f'{i / 100},0.1,0,0,0,0,9.80665,20,0,-44\\n' for i in range(1_000_000))\n"
        let written = try await Emulation.run(["python3", "-c", write, path], timeout: 60)
        #expect(written.status == 0, "\(written.stderr)")
        // The peak RSS of motiond alone: python3 runs it and reports its children's ru_maxrss (KiB).
        let measure = "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            + "print('maxrss', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)"
        let run = try await Emulation.run(["python3", "-c", measure, Emulation.motiond, "--source", "replay:\(path)", "--replay-fast",
                                           "--print-samples", "--count", "10", "--no-config"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 10, "\(run.stdout)")
        let report = try #require(run.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss ") })
        let kibibytes = try #require(Int(report.dropFirst("maxrss ".count)))
        #expect(kibibytes < 100 * 1024, "peak RSS \(kibibytes) KiB")
    }

    @Test("serving clients, motiond keeps running after the trace ends and logs that it ended")
    func servedKeepsRunning() async throws {
        let (directory, path) = try MotionCtlCommandsTests.write(Self.header + "\n0,0.1,0,0,0,0,9.80665\n0.01,0.1,0,0,0,0,9.80665\n", named: "trace.csv")
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(path)", "--no-config"])
        defer { _ = daemon.stop() }
        // The replay runs from the start, whether or not anybody reads its sensors.
        let ended = await daemon.process.wait(timeout: 20) { $0.stderr.contains("the replay of replay:\(path) ended (end of the trace): 2 rows replayed") }
        #expect(ended, "\(daemon.process.stderr)")
        #expect(daemon.process.isRunning)
        let status = try await Emulation.run([MotionCtlTests.motionctl, "status", "--socket", daemon.socket, "--wait", "10"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("replay of replay:\(path) finished"), "\(status.stdout)")
    }
}
