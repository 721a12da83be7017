import MotionSync
import Foundation
import Testing
@testable import TestSupport

/// Display servers and stand-in tools for the screen-rotation tests (`motiond-rotate`): a
/// headless sway, an Xvfb, and fake executables that log how they were called.
enum Compositors {
    /// Whether `tool` is an executable on `PATH`.
    static func installed(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains { directory in
            FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)")
        }
    }

    /// sway refuses to run as root, so as root it runs as nobody through setpriv (util-linux).
    static let haveSway = installed("sway") && installed("swaymsg") && (getuid() != 0 || installed("setpriv"))
    static let haveXvfb = installed("Xvfb") && installed("xrandr")

    /// `motiond-rotate`: the `motionctl` built beside `motiond`, started through a link of that
    /// name (`make check` makes it, as `make install` does; made here when missing).
    static var motiondRotate: String {
        let link = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motiond-rotate").path
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil {
            try? FileManager.default.removeItem(atPath: link)
            try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "motionctl")
        }
        return link
    }

    /// This process's environment without any graphical session in it (so `--backend auto`
    /// sees only what a test adds), plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = RunningProcess.plainEnvironment
        for name in ["SWAYSOCK", "HYPRLAND_INSTANCE_SIGNATURE", "XDG_CURRENT_DESKTOP", "WAYLAND_DISPLAY", "DISPLAY", "JOURNAL_STREAM"] {
            environment[name] = nil
        }
        return environment.merging(extra) { $1 }
    }

    /// `motiond-rotate ARGS` to completion with `environment`.
    static func rotate(_ arguments: [String], environment: [String: String]) async throws -> ProcessOutput {
        try await Emulation.run([motiondRotate] + arguments, environment: environment, timeout: 20)
    }
}

/// A sway of the test's own on wlroots' headless backend: one 1280×800 output `HEADLESS-1`, no
/// input devices, no Xwayland, in a private runtime directory; stopped when released.
final class HeadlessSway: Sendable {
    let runtimeDirectory: URL
    /// The IPC socket (`SWAYSOCK`).
    let socket: String
    private let process: RunningProcess

    private init(runtimeDirectory: URL, socket: String, process: RunningProcess) {
        self.runtimeDirectory = runtimeDirectory
        self.socket = socket
        self.process = process
    }

    deinit {
        process.forceStop()
        try? FileManager.default.removeItem(at: runtimeDirectory)
    }

    static func start() async throws -> HeadlessSway {
        let directory = try Emulation.temporaryDirectory()
        try "output HEADLESS-1 resolution 1280x800\nxwayland disable\n"
            .write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        // wlroots wants XDG_RUNTIME_DIR owned by the user and mode 0700.
        var command = ["sway", "-c", directory.appendingPathComponent("config").path]
        if getuid() == 0 {
            for path in [directory.path, directory.appendingPathComponent("config").path] {
                guard chown(path, 65534, 65534) == 0 else { throw TestFailure("chown \(path) to nobody failed") }
            }
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        chmod(directory.path, 0o700)
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path,
                           "XDG_RUNTIME_DIR": directory.path, "WLR_BACKENDS": "headless",
                           "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]
        let process = try RunningProcess(command, environment: environment)
        let deadline = Date().addingTimeInterval(15)
        var names: [String] = []
        var lastPing: ProcessOutput?
        while Date() < deadline && process.isRunning {
            names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if let name = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) {
                let socket = directory.appendingPathComponent(name).path
                let ping = try await Emulation.run(["swaymsg", "-s", socket, "-t", "get_version"], timeout: 5)
                if ping.status == 0 { return HeadlessSway(runtimeDirectory: directory, socket: socket, process: process) }
                lastPing = ping
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let output = process.output
        let running = process.isRunning
        process.forceStop()
        try? FileManager.default.removeItem(at: directory)
        throw TestFailure("headless sway did not start (running: \(running), exit \(output.status), files \(names), last ping: \(lastPing.map { "\($0.status) \($0.stderr)" } ?? "none")): \(output.stderr)")
    }

    /// `swaymsg -t get_outputs`, decoded.
    func outputs() async throws -> [[String: Any]] {
        let reply = try await Emulation.run(["swaymsg", "-s", socket, "-r", "-t", "get_outputs"], timeout: 5)
        guard reply.status == 0, let outputs = try JSONSerialization.jsonObject(with: Data(reply.stdout.utf8)) as? [[String: Any]] else {
            throw TestFailure("swaymsg -t get_outputs failed: \(reply.stderr)")
        }
        return outputs
    }

    /// One output's `transform` field (`normal`, `90`, `180`, `270`) and logical width.
    func state(of output: String) async throws -> (transform: String?, width: Int?) {
        let found = try await outputs().first { $0["name"] as? String == output }
        return (found?["transform"] as? String, (found?["rect"] as? [String: Any])?["width"] as? Int)
    }

    var log: String { process.stderr }
}

/// An Xvfb of the test's own (1280×800), on a display number it picks itself (`-displayfd`).
/// `-noreset`: by default the server resets whenever its last client leaves, and a client that
/// connects meanwhile is refused ("Can't open display"), as a helper's second xrandr call was in
/// CI; four shells calling `xrandr --query` in a loop get a few such refusals in 600 calls.
final class VirtualX: Sendable {
    /// `DISPLAY`, e.g. `:5`.
    let display: String
    private let process: RunningProcess

    private init(display: String, process: RunningProcess) {
        self.display = display
        self.process = process
    }

    deinit {
        // SIGTERM: the server removes its own socket. (Killed, it left the socket behind, and
        // unlinking it afterwards raced a parallel test's Xvfb that had taken the same number
        // meanwhile: -displayfd takes no lock file.)
        process.terminate()
    }

    static func start() async throws -> VirtualX {
        let process = try RunningProcess(["Xvfb", "-displayfd", "1", "-noreset", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
        guard await process.wait(timeout: 15, for: { $0.stdout.hasSuffix("\n") }),
              let number = Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            let output = process.output
            process.forceStop()
            throw TestFailure("Xvfb did not start: \(output.stderr)")
        }
        return VirtualX(display: ":\(number)", process: process)
    }
}

extension RunningProcess {
    /// SIGKILL, then reaps: for a throwaway process with nothing to clean up, which need not
    /// be given `terminate()`'s grace period.
    func forceStop() {
        // Only while unreaped: a reaped child's pid may belong to another process by now.
        if isRunning { Glibc.kill(pid, SIGKILL) }
        _ = stop()
    }
}

/// Executables placed first on `PATH` that log each call (program and arguments, tab-separated,
/// one line per call) and then run a test's shell snippet, to stand in for tools without a real
/// peer here (hyprctl, kscreen-doctor, …).
final class FakeTools: Sendable {
    let directory: URL
    private let logFile: URL

    init() throws {
        directory = try Emulation.temporaryDirectory()
        logFile = directory.appendingPathComponent("calls.log")
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Adds `name`, which logs its call and then runs `body` (sh; `$1`… are its arguments).
    func add(_ name: String, _ body: String = "exit 0") throws {
        let script = """
            #!/bin/sh
            { printf '%s' '\(name)'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >> '\(logFile.path)'
            \(body)

            """
        let path = directory.appendingPathComponent(name).path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// Every call so far, each as program and arguments.
    var calls: [[String]] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    func clear() { try? FileManager.default.removeItem(at: logFile) }

    /// A graphical-session-free environment with these tools first on `PATH`, plus `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = Compositors.environment(extra)
        environment["PATH"] = directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }
}
