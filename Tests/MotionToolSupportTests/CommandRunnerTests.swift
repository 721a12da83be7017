import Glibc
import MotionToolSupport
import Testing

/// The tools' child processes (display commands, rsvg-convert) run through posix_spawnp with
/// real programs: /bin/sh scripts that write, fail, hang and check their signals.
@Suite("CommandRunner: commands run without a shell in between, outputs captured, hangs killed")
struct CommandRunnerTests {
    @Test("both outputs captured apart, the exit status kept, arguments passed as they are")
    func outputs() {
        let result = CommandRunner().run(["sh", "-c", "printf '%s|' \"$@\"; echo oops >&2; exit 3", "sh", "a b", "'c'", "$HOME"])
        #expect(result.status == 3)
        #expect(result.stdout == "a b|'c'|$HOME|")
        #expect(result.stderr == "oops\n")
    }

    @Test("outputs larger than a pipe holds, on both streams at once, arrive whole (neither blocks the other)")
    func largeOutputs() {
        // 1 MiB to each stream, interleaved: a runner reading one pipe to its end first would
        // leave the command blocked on the other.
        let result = CommandRunner().run(["sh", "-c", "i=0; while [ $i -lt 16 ]; do head -c 65536 /dev/zero | tr '\\0' o; head -c 65536 /dev/zero | tr '\\0' e >&2; i=$((i+1)); done"])
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count == 1 << 20 && result.stdout.utf8.allSatisfy { $0 == UInt8(ascii: "o") })
        #expect(result.stderr.utf8.count == 1 << 20 && result.stderr.utf8.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    @Test("the command inherits standard input, output and error only, even a descriptor opened without close-on-exec")
    func onlyStandardDescriptors() {
        let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC
        defer { close(leaked) }
        #expect(leaked > 2)
        let result = CommandRunner().run(["ls", "/proc/self/fd"])
        #expect(result.status == 0)
        // ls's own directory descriptor shows too (3, its first free number).
        #expect(result.stdout.split(separator: "\n").filter { Int($0)! > 3 } == [], "\(result.stdout)")
    }

    @Test("a program not on PATH is exit 127 with the system's reason; nothing reads standard input")
    func notFound() {
        let missing = CommandRunner().run(["motiond-no-such-program", "x"])
        #expect(missing.status == 127)
        #expect(missing.stderr == "cannot run motiond-no-such-program: No such file or directory")
        let input = CommandRunner().run(["sh", "-c", "cat; echo end"])
        #expect(input.status == 0 && input.stdout == "end\n")
    }

    @Test("a command past its timeout is killed, a background child holding its pipes open included, and says so")
    func timeout() {
        let started = ContinuousClock.now
        let result = CommandRunner(timeout: 0.5).run(["sh", "-c", "echo begun; sleep 30 & sleep 30"])
        let took = ContinuousClock.now - started
        #expect(result.status == SIGKILL)
        #expect(result.stdout == "begun\n")
        #expect(result.stderr.hasSuffix("killed by signal 9 (commands get 0.5 s)"), "\(result.stderr)")
        // Half a second, then one more for the pipes the orphaned sleep holds.
        #expect(took < .seconds(5), "\(took)")
    }

    @Test("a command that closes its outputs and keeps running is killed at the timeout too")
    func silentHang() {
        let started = ContinuousClock.now
        let result = CommandRunner(timeout: 0.5).run(["sh", "-c", "exec >&- 2>&-; sleep 30"])
        #expect(result.status == SIGKILL)
        #expect(result.stderr == "killed by signal 9 (commands get 0.5 s)")
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("the command starts with no signal blocked or ignored, whatever the tool does with its own")
    func signals() {
        // motiond-rotate ignores SIGUSR1 (its hold toggle comes through a signal source), and
        // signal handling threads block signals; neither may reach the commands it runs.
        var mask = sigset_t(), previous = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &mask, &previous)
        let disposition = signal(SIGUSR1, SIG_IGN)
        defer {
            signal(SIGUSR1, disposition)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        let result = CommandRunner().run(["sh", "-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status"])
        #expect(result.status == 0)
        // Bit n-1 stands for signal n. Signals 32 and 33 are glibc's own, out of reach.
        let masks = result.stdout.split(separator: "\n").map { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2 && masks.allSatisfy { $0.map { $0 & 0x7fff_ffff == 0 } ?? false }, "\(result.stdout)")
    }
}
