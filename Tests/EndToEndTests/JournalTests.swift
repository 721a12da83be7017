import Foundation
import Glibc
@testable import TestSupport
import Testing

/// motiond's log in the systemd journal: native entries read back from a real systemd-journald
/// that runs, as root, in a private mount namespace (tmpfs on /run/systemd and /run/log, so the
/// machine's own journal is never touched), and the `--log-target auto` choice between the
/// journal and standard error.
@Suite("Journal logging")
struct JournalTests {
    static let journald = "/lib/systemd/systemd-journald"

    /// Root, `unshare -m` that works here, systemd-journald and journalctl.
    static let canRunPrivateJournal: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: journald),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/journalctl") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["unshare", "-m", "true"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    static let needsPrivateJournal: Comment =
        "needs root, a working `unshare -m` and /lib/systemd/systemd-journald (a private journald in a mount namespace)"

    /// One journal entry as `journalctl -o json` prints it; multi-valued fields are arrays.
    typealias Entry = [String: Any]

    /// Runs `script` (sh) in a private mount namespace with its own systemd-journald, then
    /// reads that journal back once per query (`journalctl -D … -o json --all QUERY`).
    /// Returns the script's output and the entries each query matched.
    static func withPrivateJournal(_ script: String, queries: [String]) async throws -> (output: ProcessOutput, results: [[Entry]]) {
        let marker = "--- journal query ---"
        let reads = queries.map { "echo '\(marker)'; journalctl -D /run/log/journal -o json --all \($0)" }.joined(separator: "\n")
        let wrapped = """
        mount -t tmpfs tmpfs /run/systemd || exit 1
        mount -t tmpfs tmpfs /run/log || exit 1
        if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal || exit 1; fi
        \(journald) </dev/null >/dev/null 2>&1 &
        journald=$!
        trap 'kill $journald; wait $journald' EXIT
        tries=0
        until [ -S /run/systemd/journal/socket ]; do
            tries=$((tries + 1)); [ $tries -lt 200 ] || { echo 'journald did not start' >&2; exit 1; }
            sleep 0.05
        done
        \(script)
        journalctl --sync || sleep 1
        \(reads)
        """
        let output = try await Emulation.run(["unshare", "-m", "sh", "-c", wrapped], timeout: 60)
        let sections = output.stdout.components(separatedBy: marker + "\n")
        guard sections.count == queries.count + 1 else {
            throw TestFailure("the private journal was not read (\(output.status)): \(output.stdout) \(output.stderr)")
        }
        let results = sections.dropFirst().map { section in
            section.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? Entry
            }
        }
        return (output, results)
    }

    static func quoted(_ arguments: [String]) -> String {
        ([Emulation.motiond] + arguments).map(Emulation.shellQuote).joined(separator: " ")
    }

    @Test("native entries: message, priority, code location, sensor metadata as MOTIOND_* fields; filtering by sensor",
          .enabled(if: canRunPrivateJournal, needsPrivateJournal))
    func nativeEntries() async throws {
        // The ST LSM6DSL has its accelerometer and gyroscope on two devices; neither buffer is
        // fed, so both fall back to polling (a notice) before being read (info). A trace path
        // with a newline makes an error whose message spans two lines.
        let fixture = Emulation.shellQuote(Emulation.fixture("lsm6dsx.umockdev"))
        let reading = Self.quoted(["--print-samples", "--duration", "1.5", "--log-target", "journal", "--log-level", "debug"])
        let failing = Self.quoted(["--source", "replay:/nonexistent/first\nsecond.csv", "--print-samples", "--log-target", "journal"])
        let (output, results) = try await Self.withPrivateJournal("""
            umockdev-run -d \(fixture) -- \(reading) >/dev/null
            echo "reading: $?"
            \(failing) >/dev/null
            echo "failing: $?"
            """, queries: ["SYSLOG_IDENTIFIER=motiond", "MOTIOND_SENSOR=gyroscope"])
        #expect(output.stdout.contains("reading: 0\n"), "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("failing: 1\n"))
        // Everything went to the journal, nothing to standard error: libiio's own warning at
        // each buffer open neither (a debug entry of motiond's, once for both devices).
        #expect(!output.stderr.contains("motiond") && !output.stderr.contains("High-speed"), "\(output.stderr)")

        let entries = results[0]
        try #require(!entries.isEmpty, "no motiond entries in the journal: \(output.stderr)")
        for entry in entries {
            #expect(entry["_TRANSPORT"] as? String == "journal")
            #expect(entry["MESSAGE"] is String)
            #expect((entry["PRIORITY"] as? String).flatMap(Int.init).map { (2...7).contains($0) } == true)
            #expect((entry["CODE_FILE"] as? String)?.hasSuffix(".swift") == true)
            #expect((entry["CODE_LINE"] as? String).flatMap(Int.init).map { $0 > 0 } == true)
            #expect((entry["CODE_FUNC"] as? String)?.isEmpty == false)
        }
        func entry(_ prefix: String) -> Entry? {
            entries.first { ($0["MESSAGE"] as? String)?.hasPrefix(prefix) == true }
        }

        let gyroscope = try #require(entry("reading gyroscope from iio:device1"), "\(entries.compactMap { $0["MESSAGE"] })")
        #expect(gyroscope["PRIORITY"] as? String == "6")
        #expect(gyroscope["CODE_FILE"] as? String == "MotionIIO/IIOSource.swift")
        #expect((gyroscope["CODE_FUNC"] as? String)?.hasPrefix("startReader(") == true)
        #expect(gyroscope["MOTIOND_SENSOR"] as? String == "gyroscope")
        #expect(gyroscope["MOTIOND_DEVICE"] as? String == "iio:device1")
        let accelerometer = try #require(entry("reading accelerometer from iio:device0"))
        #expect(accelerometer["MOTIOND_SENSOR"] as? String == "accelerometer")
        #expect(entry("iio:device0 (lsm6dsl_accel): the buffer produced no data")?["PRIORITY"] as? String == "5")
        let libiio = entries.filter { $0["MESSAGE"] as? String == "libiio: WARNING: High-speed mode not enabled" }
        #expect(libiio.count == 1 && libiio.first?["PRIORITY"] as? String == "7", "\(libiio)")

        let error = try #require(entries.first { $0["PRIORITY"] as? String == "3" })
        #expect((error["MESSAGE"] as? String)?.contains("cannot replay /nonexistent/first\nsecond.csv") == true, "\(error)")

        // The journal's own index finds the entries of one sensor, and only those.
        let filtered = results[1]
        #expect(filtered.contains { $0["MESSAGE"] as? String == gyroscope["MESSAGE"] as? String })
        #expect(!filtered.isEmpty && filtered.allSatisfy { $0["MOTIOND_SENSOR"] as? String == "gyroscope" })
    }

    @Test("--log-target auto: the journal when JOURNAL_STREAM names stderr, stderr without it or when it names another file",
          .enabled(if: canRunPrivateJournal, needsPrivateJournal))
    func autoFollowsJournalStream() async throws {
        let run = Self.quoted(["--source", "sim:", "--count", "3", "--log-target", "auto"])
        let (output, results) = try await Self.withPrivateJournal("""
            dir=$(mktemp -d)
            ( unset JOURNAL_STREAM; \(run) >/dev/null 2>"$dir/unset" )
            JOURNAL_STREAM=1:1 \(run) >/dev/null 2>"$dir/other"
            : >"$dir/journal"
            JOURNAL_STREAM=$(stat -c %d:%i "$dir/journal") \(run) >/dev/null 2>"$dir/journal"
            for name in unset other journal; do echo "--- $name ---"; cat "$dir/$name"; done
            rm -r "$dir"
            """, queries: ["SYSLOG_IDENTIFIER=motiond"])
        let logs = output.stdout.components(separatedBy: "--- journal query ---")[0]
        func section(_ name: String) -> String {
            logs.components(separatedBy: "--- \(name) ---\n").last?.components(separatedBy: "\n--- ").first ?? ""
        }
        #expect(section("unset").contains("motiond reading sim:"), "\(output.stdout) \(output.stderr)")
        #expect(section("other").contains("motiond reading sim:"))
        #expect(!section("journal").contains("motiond reading sim:"), "\(section("journal"))")

        // Only the run whose stderr JOURNAL_STREAM named wrote entries.
        let entries = results[0]
        #expect(entries.contains { ($0["MESSAGE"] as? String)?.hasPrefix("motiond reading sim:") == true }, "\(output.stderr)")
        let pids = Set(entries.compactMap { $0["_PID"] as? String })
        #expect(pids.count == 1, "entries from \(pids.count) processes")
    }

    @Test("--log-target auto without JOURNAL_STREAM writes text lines to standard error")
    func autoWithoutJournalStream() async throws {
        var environment = RunningProcess.plainEnvironment
        environment["JOURNAL_STREAM"] = nil
        let output = try await Emulation.run([Emulation.motiond, "--source", "sim:", "--count", "3", "--log-target", "auto"], environment: environment)
        #expect(output.status == 0)
        let line = output.stderr.split(separator: "\n").first { $0.contains("motiond reading sim:") }
        #expect(line?.contains(" info motiond:") == true, "\(output.stderr)")
    }
}
