import CSpawn
import Glibc
import MotionSync

/// What a finished command printed and how it ended.
public struct CommandResult: Sendable {
    /// The exit status; the signal's number when a signal ended it; 127 when the program
    /// could not be started (not found on `PATH`, not executable).
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs one command to completion with posix_spawnp(3), its program looked up on `PATH`,
/// standard input from /dev/null, both outputs captured and no other descriptor inherited. Arguments go to the program as
/// they are: nothing passes through a shell. The child starts with no signal blocked and
/// every signal at its default action (the helper ignores SIGUSR1; its commands must not).
public struct CommandRunner: Sendable {
    /// How long a command may take before it is killed with SIGKILL (seconds): a compositor
    /// that stopped answering must not stall the helper for good.
    public var timeout: Double

    public init(timeout: Double = 10) {
        self.timeout = timeout
    }

    public func run(_ command: [String]) -> CommandResult {
        guard let program = command.first else { return CommandResult(status: 127, stdout: "", stderr: "no command") }
        var output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        guard Self.pipe(&output) else { return failure(program, errno) }
        guard Self.pipe(&errors) else {
            let code = errno
            close(output[0]); close(output[1])
            return failure(program, code)
        }
        var pid: pid_t = 0
        let started = spawn(command, stdout: output[1], stderr: errors[1], pid: &pid)
        close(output[1]); close(errors[1])
        guard started == 0 else {
            close(output[0]); close(errors[0])
            return failure(program, started)
        }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var (out, err, timedOut) = drain(output[0], errors[0], pid: pid, until: deadline)
        close(output[0]); close(errors[0])
        // A command may close its outputs and keep running: it is waited for until the same
        // deadline, then killed.
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            if !timedOut && ContinuousClock.now >= deadline {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(1000)
        }
        // The wait status: a signal's number in the low 7 bits, else the exit code above them.
        let signal = status & 0x7f
        let killed = timedOut ? " (commands get \(timeout) s)" : ""
        return CommandResult(status: signal == 0 ? (status >> 8) & 0xff : signal,
                             stdout: String(decoding: out, as: UTF8.self),
                             stderr: String(decoding: err, as: UTF8.self) + (signal == 0 ? "" : "killed by signal \(signal)\(killed)"))
    }

    /// A pipe whose ends close on exec (the child gets its copies by dup2); false with errno set.
    /// (pipe2 is a GNU extension the Glibc module does not show. Between pipe and fcntl a command
    /// spawned here from another thread would still close them: it keeps descriptors 0–2 only.)
    private static func pipe(_ ends: inout [Int32]) -> Bool {
        guard Glibc.pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// posix_spawnp with the two pipes as standard output and error; 0 or the errno.
    private func spawn(_ command: [String], stdout: Int32, stderr: Int32, pid: inout pid_t) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of ours: a descriptor opened without close-on-exec (by a library, or
        // another thread between open and fcntl) must not live on in the command, or in what
        // it leaves running.
        motiond_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        return posix_spawnp(&pid, command[0], &actions, &attributes, arguments, environ)
    }

    /// Reads both pipes until each ends, at once (a command filling one of them cannot block
    /// on it). At `deadline` the command is killed; what it left behind holding the pipes open
    /// (a background child) gets one more second, then the pipes are given up.
    private func drain(_ output: Int32, _ errors: Int32, pid: pid_t,
                       until deadline: ContinuousClock.Instant) -> (out: [UInt8], err: [UInt8], timedOut: Bool) {
        var collected: [[UInt8]] = [[], []]
        var descriptors = [pollfd(fd: output, events: Int16(POLLIN), revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
        var deadline = deadline
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while descriptors.contains(where: { $0.fd >= 0 }) {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero {
                if timedOut { break }
                timedOut = true
                kill(pid, SIGKILL)
                deadline = ContinuousClock.now + .seconds(1)
                continue
            }
            let ready = poll(&descriptors, 2, left.pollTimeout)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptors[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[index] += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    descriptors[index].fd = -1  // poll skips negative descriptors
                }
            }
        }
        return (collected[0], collected[1], timedOut)
    }

    /// The result of a command that could not be started: exit 127, the reason on stderr.
    private func failure(_ program: String, _ code: Int32) -> CommandResult {
        CommandResult(status: 127, stdout: "", stderr: "cannot run \(program): \(SystemError(code))")
    }
}
