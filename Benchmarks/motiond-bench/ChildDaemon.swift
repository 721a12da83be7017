import Foundation
import Glibc
import MotionCore
import MotionToolSupport

/// `motiond --source sim:` as a child process, on a socket in its own temporary directory (never
/// the system's /run/motiond).
final class ChildDaemon {
    let executable: String
    let socketPath: String
    private let directory: String
    private let process = Process()

    /// The motiond in the directory of the running motiond-bench.
    static func besideThisExecutable() throws -> String {
        guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw BenchError("cannot find this executable (/proc/self/exe); pass --motiond PATH")
        }
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("motiond").path
    }

    init(executable: String) throws {
        guard access(executable, X_OK) == 0 else {
            throw BenchError("no executable motiond at \(executable): build it (swift build -c release --product motiond) or pass --motiond PATH")
        }
        self.executable = executable
        var template = Array((FileManager.default.temporaryDirectory.path + "/motiond-bench.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        socketPath = directory + "/motiond.sock"
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--source", "sim:", "--socket", socketPath, "--log-level", "warning"]
        do {
            try process.run()
        } catch {
            rmdir(directory)
            throw BenchError("cannot start \(executable): \(error)")
        }
        // Ready once the socket accepts a connection.
        let deadline = BenchClock.monotonic() + 10
        while true {
            if let fd = try? DaemonConnection.connectSocket(path: socketPath) {
                close(fd)
                return
            }
            guard process.isRunning else {
                rmdir(directory)
                throw BenchError("motiond exited before serving its socket (\(exitDescription))")
            }
            guard BenchClock.monotonic() < deadline else {
                _ = stop()
                throw BenchError("motiond did not accept connections on \(socketPath) within 10 s")
            }
            usleep(20_000)
        }
    }

    var pid: Int32 { process.processIdentifier }

    private var exitDescription: String {
        process.terminationReason == .uncaughtSignal ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
    }

    func checkRunning() throws {
        guard process.isRunning else { throw BenchError("motiond is gone (\(exitDescription))") }
    }

    /// utime + stime, clock ticks (fields 14 and 15 of /proc/PID/stat).
    func cpuTicks() throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count after it.
        guard let close = text.lastIndex(of: ")") else { throw BenchError("cannot parse /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw BenchError("cannot parse /proc/\(pid)/stat")
        }
        return user + system
    }

    /// Resident memory now and its peak since the daemon started, kB.
    func memory() throws -> (rss: Int, peak: Int) {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kilobytes(_ key: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).compactMap { Int($0.trimmingWhitespace(newlines: false)) }.first
        }
        guard let rss = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { throw BenchError("no VmRSS/VmHWM in /proc/\(pid)/status") }
        return (rss, peak)
    }

    /// SIGTERM, then waits up to 5 s (SIGKILL after); removes the temporary directory. Returns
    /// how it ended, e.g. `exit status 0`.
    func stop() -> String {
        let how: String
        if process.isRunning {
            process.terminate()
            let deadline = BenchClock.monotonic() + 5
            while process.isRunning && BenchClock.monotonic() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
                how = "did not exit within 5 s of SIGTERM; killed"
            } else {
                how = exitDescription
            }
        } else {
            how = "had already ended (\(exitDescription))"
        }
        unlink(socketPath)
        rmdir(directory)
        return how
    }
}
