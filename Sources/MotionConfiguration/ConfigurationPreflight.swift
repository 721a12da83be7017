import Glibc
import MotionCore
import MotionIIO

/// Reads a configuration file in a child process (`motiond --parse-config`, hidden) before the daemon
/// reads it itself, so that a file the TOML library cannot cope with is an error, never the
/// daemon's end. The library (TOMLKit's toml++) stops the process with an assertion on some
/// malformed files — `a=[}` or a table header `[.` — found by `Fuzz/FuzzConfiguration`; at
/// start that would be a crash instead of exit 78, on `systemctl reload` the loss of a running
/// service over a typo.
public enum ConfigurationPreflight {
    /// Seconds the child may take (motiond's own files take milliseconds).
    public static let timeout = 10.0

    /// Checks `file` with `executable --parse-config --config FILE`: nothing when the child
    /// exited (its verdict on an ordinary error is the same as the daemon's own reading, which
    /// follows), an error naming the file when the child was killed by a signal or did not
    /// finish within `timeout` seconds (then it is killed: a reload never hangs on a file).
    public static func check(_ file: String, executable: String = "/proc/self/exe", timeout: Double = timeout) throws(ConfigurationError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        // The child starts with default signal handling (the daemon ignores some) and an
        // empty mask, whatever thread asks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let arguments = ["motiond", "--parse-config", "--config", file, "--log-target", "stderr"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        // Swift's crash reporter would take its time over the child's abort.
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no")]
        var entry = environ
        while let variable = entry.pointee {
            if strncmp(variable, "SWIFT_BACKTRACE=", 16) != 0 { environment.append(strdup(variable)) }
            entry += 1
        }
        environment.append(nil)
        defer { for variable in environment { free(variable) } }
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &argv, &environment)
        close(pipeEnds[1])
        guard spawned == 0 else {
            // No child to be had (resource limits): the daemon reads the file as before.
            close(pipeEnds[0])
            return
        }
        let output = readAll(pipeEnds[0], until: BootClock.now() + timeout)
        close(pipeEnds[0])
        if output == nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard let output else {
            throw ConfigurationError(file: file, line: nil, key: nil,
                                     message: "the TOML parser did not finish reading this file within \(DecimalText.shortest(timeout)) s")
        }
        // WIFSIGNALED / WTERMSIG, which Glibc's module does not import.
        let signal = status & 0x7f
        guard signal != 0 && signal != 0x7f else { return }
        var said = String(decoding: output, as: UTF8.self).split(separator: "\n").last.map { ": " + $0 } ?? ""
        while said.hasSuffix(".") { said.removeLast() }
        throw ConfigurationError(
            file: file, line: nil, key: nil,
            message: "the TOML parser crashed on this file (\(String(cString: strsignal(signal))))\(said); "
                + "it holds a syntax error the parser cannot report — look for a stray '[', '{', '}' or '.'")
    }

    /// Everything until end of file (at most 64 KiB kept), or nil when the end has not come by
    /// `deadline` (boot-clock seconds).
    private static func readAll(_ fd: Int32, until deadline: Double) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - BootClock.now()
            guard left > 0 else { return nil }
            var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&readable, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return output }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if output.count < 65_536 { output.append(contentsOf: buffer[0..<n]) }
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return output
            }
        }
    }
}
