import Foundation
@testable import TestSupport
import Testing

/// `motiond-rotate` run as a user would: against a real headless sway and Xvfb where they exist
/// here, against fake executables for the compositors that do not (Hyprland, KDE, wlr-randr's
/// success path, a custom command), and fed replayed orientation events for the debounce and
/// hold logic (event timestamps are its clock: no sleeping).
@Suite("motiond-rotate")
struct RotateTests {
    /// docs/EVENTS.md's table: the rotation that keeps the picture upright in each upright
    /// orientation, as xrandr and `wl_output` name it.
    static let contract: [(orientation: String, xrandr: String, wayland: String)] = [
        ("landscapeRight", "left", "90"),
        ("portraitUpsideDown", "inverted", "180"),
        ("landscapeLeft", "right", "270"),
        ("portrait", "normal", "normal"),
    ]

    /// Orientation events as the socket and `motionctl analyze --json` write them.
    static func events(_ events: [(Double, String)]) -> String {
        events.map { #"{"type":"orientation","timestamp":\#($0.0),"orientation":"\#($0.1)"}"# + "\n" }.joined()
    }

    /// Lines of `text` that contain `fragment`.
    static func lines(_ text: String, containing fragment: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.contains(fragment) }
    }

    // MARK: - sway

    @Test("sway: each upright orientation sets the transform of EVENTS.md, on the output found by itself",
          .enabled(if: Compositors.haveSway, "needs sway and swaymsg (and setpriv as root)"))
    func swayTransforms() async throws {
        let sway = try await HeadlessSway.start()
        let environment = Compositors.environment(["SWAYSOCK": sway.socket])
        for entry in Self.contract {
            let run = try await Compositors.rotate(["--apply", entry.orientation], environment: environment)
            #expect(run.status == 0, "\(entry.orientation): \(run.stderr)")
            let state = try await sway.state(of: "HEADLESS-1")
            #expect(state.transform == entry.wayland, "\(entry.orientation)")
            // The picture really turned: the 1280×800 panel is 800 wide on its side.
            #expect(state.width == (entry.wayland == "90" || entry.wayland == "270" ? 800 : 1280), "\(entry.orientation)")
            #expect(run.stderr.contains("backend sway: SWAYSOCK is set"))
            #expect(run.stderr.contains("rotating output HEADLESS-1: the first active output"))
        }
        // An output sway does not have: swaymsg says success, the read-back says otherwise.
        let wrong = try await Compositors.rotate(["--apply", "landscapeLeft", "--output", "HDMI-A-9"], environment: environment)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("sway has no output HDMI-A-9"))
    }

    @Test("sway follows a trace: motionctl analyze's events replayed turn the output to landscapeLeft",
          .enabled(if: Compositors.haveSway, "needs sway and swaymsg (and setpriv as root)"))
    func swayFollowsAnalyzedTrace() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = try Self.quarterTurn(in: dir)
        let motionctl = URL(fileURLWithPath: Compositors.motiondRotate).deletingLastPathComponent().appendingPathComponent("motionctl").path
        let analyzed = try await Emulation.run([motionctl, "analyze", "--input", trace, "--json"])
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        let events = dir.appendingPathComponent("events.jsonl").path
        try analyzed.stdout.write(toFile: events, atomically: true, encoding: .utf8)

        let sway = try await HeadlessSway.start()
        let run = try await Compositors.rotate(["--replay", events], environment: Compositors.environment(["SWAYSOCK": sway.socket]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.lines(run.stderr, containing: "rotating to").map { $0.components(separatedBy: " at ").first ?? "" }
                == ["rotating to portrait", "rotating to landscapeLeft"], "\(analyzed.stdout)\n\(run.stderr)")
        #expect(try await sway.state(of: "HEADLESS-1").transform == "270")
    }

    @Test("wlr-randr: the output comes from wlr-randr's own listing; its answer is logged either way",
          .enabled(if: Compositors.haveSway && Compositors.installed("wlr-randr"), "needs sway and wlr-randr"))
    func wlrRandrOnSway() async throws {
        let sway = try await HeadlessSway.start()
        let environment = Compositors.environment(["XDG_RUNTIME_DIR": sway.runtimeDirectory.path, "WAYLAND_DISPLAY": "wayland-1"])
        let dry = try await Compositors.rotate(["--apply", "landscapeLeft", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "wlr-randr --output HEADLESS-1 --transform 270\n")
        #expect(dry.stderr.contains("backend wlr-randr: WAYLAND_DISPLAY is set"))
        #expect(try await sway.state(of: "HEADLESS-1").transform == "normal")

        let run = try await Compositors.rotate(["--apply", "landscapeLeft"], environment: environment)
        if run.status == 0 {
            #expect(try await sway.state(of: "HEADLESS-1").transform == "270")
        } else {
            // sway 1.7's headless output has no mode, so it reaches wlr-randr 0.2 as disabled and
            // the configuration is refused: the failure must be reported with wlr-randr's words.
            #expect(run.status == 1)
            #expect(run.stderr.contains("`wlr-randr --output HEADLESS-1 --transform 270` failed (exit 1): failed to apply configuration"), "\(run.stderr)")
        }
    }

    // MARK: - X11

    /// Where the panel's point (x, y) (0…1 as the panel is built) must land on the turned screen,
    /// from turning the device: clockwise raises its left edge (landscapeRight), and so on.
    static func landing(_ orientation: String, _ x: Double, _ y: Double) -> (Double, Double) {
        switch orientation {
        case "landscapeRight": return (1 - y, x)
        case "portraitUpsideDown": return (1 - x, 1 - y)
        case "landscapeLeft": return (y, 1 - x)
        default: return (x, y)
        }
    }

    @Test("x11: xrandr --rotate as EVENTS.md says, and a touch matrix that puts every panel corner where the turned picture has it",
          .enabled(if: Compositors.haveXvfb, "needs Xvfb and xrandr"))
    func x11RotationsAndTouch() async throws {
        let x = try await VirtualX.start()
        // Xvfb's RandR cannot rotate, so xrandr is a fake that logs (its queries go to the real
        // one, on Xvfb), and so is xinput: Xvfb takes `xinput set-prop` without an error but
        // keeps every device property as it was.
        let fakes = try FakeTools()
        try fakes.add("xrandr", #"[ "$1" = --query ] && exec /usr/bin/xrandr "$@"; exit 0"#)
        try fakes.add("xinput")
        let environment = fakes.environment(["DISPLAY": x.display])
        for entry in Self.contract {
            fakes.clear()
            let run = try await Compositors.rotate(["--apply", entry.orientation, "--touch-device", "ELAN Touchscreen", "--touch-device", "Wacom Pen"],
                                                   environment: environment)
            #expect(run.status == 0, "\(entry.orientation): \(run.stderr)")
            let calls = fakes.calls
            try #require(calls.count == 4, "\(calls)")
            #expect(Array(calls[0...1]) == [["xrandr", "--query"], ["xrandr", "--output", "screen", "--rotate", entry.xrandr]], "\(entry.orientation)")
            #expect(calls[2].prefix(4) == ["xinput", "set-prop", "ELAN Touchscreen", "Coordinate Transformation Matrix"])
            #expect(calls[3].prefix(3) == ["xinput", "set-prop", "Wacom Pen"] && calls[3].dropFirst(3) == calls[2].dropFirst(3))
            let m = calls[2].dropFirst(4).compactMap(Double.init)
            try #require(m.count == 9)
            #expect(Array(m[6...]) == [0, 0, 1])
            for (px, py) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.25, 0.5)] {
                let mapped = (m[0] * px + m[1] * py + m[2], m[3] * px + m[4] * py + m[5])
                let expected = Self.landing(entry.orientation, px, py)
                #expect(abs(mapped.0 - expected.0) < 1e-9 && abs(mapped.1 - expected.1) < 1e-9, "\(entry.orientation) (\(px), \(py))")
            }
        }
    }

    @Test("x11: on real xrandr, normal applies and a rotation Xvfb cannot do is logged with xrandr's words, touch left alone",
          .enabled(if: Compositors.haveXvfb, "needs Xvfb and xrandr"))
    func x11RealXrandr() async throws {
        let x = try await VirtualX.start()
        let fakes = try FakeTools()
        try fakes.add("xinput")
        let environment = fakes.environment(["DISPLAY": x.display])

        let normal = try await Compositors.rotate(["--apply", "portrait", "--touch-device", "ELAN Touchscreen"], environment: environment)
        #expect(normal.status == 0, "\(normal.stderr)")
        #expect(normal.stderr.contains("backend x11: DISPLAY is set"))
        #expect(normal.stderr.contains("rotating output screen: the first active output among screen (`xrandr --query`)"))
        #expect(fakes.calls == [["xinput", "set-prop", "ELAN Touchscreen", "Coordinate Transformation Matrix", "1", "0", "0", "0", "1", "0", "0", "0", "1"]])

        fakes.clear()
        let left = try await Compositors.rotate(["--apply", "landscapeRight", "--touch-device", "ELAN Touchscreen"], environment: environment)
        #expect(left.status == 1)
        #expect(left.stderr.contains("could not rotate to landscapeRight: `xrandr --output screen --rotate left` failed (exit 1)"), "\(left.stderr)")
        #expect(left.stderr.contains("cannot use rotation"))
        #expect(fakes.calls == [])
    }

    // MARK: - Backends without a peer here

    @Test("hyprland: the whole monitor rule with mode, position and scale read back, transform 0–3; its errors are failures")
    func hyprland() async throws {
        let fakes = try FakeTools()
        let monitors = #"[{"name":"HDMI-A-1","width":1920,"height":1080,"refreshRate":60.00000,"x":0,"y":0,"scale":1.00,"transform":0,"disabled":false},{"name":"eDP-1","width":2880,"height":1800,"refreshRate":90.00100,"x":1920,"y":0,"scale":1.50,"transform":0,"disabled":false}]"#
        try fakes.add("hyprctl", """
            [ "$1 $2" = "-j monitors" ] && { echo '\(monitors)'; exit 0; }
            [ -e '\(fakes.directory.path)/refuse' ] && { echo 'invalid monitor'; exit 0; }
            echo ok
            """)
        let environment = fakes.environment(["HYPRLAND_INSTANCE_SIGNATURE": "test"])
        for (entry, number) in zip(Self.contract, ["1", "2", "3", "0"]) {
            fakes.clear()
            let run = try await Compositors.rotate(["--apply", entry.orientation], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(fakes.calls.last == ["hyprctl", "keyword", "monitor", "eDP-1,2880x1800@90.001,1920x0,1.5,transform,\(number)"], "\(entry.orientation)")
        }
        let run = try await Compositors.rotate(["--apply", "portrait"], environment: environment)
        #expect(run.stderr.contains("rotating output eDP-1: the built-in panel among HDMI-A-1, eDP-1"))
        _ = FileManager.default.createFile(atPath: fakes.directory.appendingPathComponent("refuse").path, contents: nil)
        let refused = try await Compositors.rotate(["--apply", "portrait"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("failed (exit 0): invalid monitor"), "\(refused.stderr)")
    }

    @Test("kde: kscreen-doctor output.NAME.rotation.none|left|inverted|right on the built-in panel")
    func kde() async throws {
        let fakes = try FakeTools()
        let outputs = #"{"outputs":[{"name":"DP-2","enabled":true,"connected":true},{"name":"eDP-1","enabled":true,"connected":true}]}"#
        try fakes.add("kscreen-doctor", #"[ "$1" = -j ] && echo '\#(outputs)'; exit 0"#)
        let environment = fakes.environment(["XDG_CURRENT_DESKTOP": "KDE", "WAYLAND_DISPLAY": "wayland-0"])
        for entry in Self.contract {
            fakes.clear()
            let run = try await Compositors.rotate(["--apply", entry.orientation], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let name = entry.xrandr == "normal" ? "none" : entry.xrandr
            #expect(fakes.calls == [["kscreen-doctor", "-j"], ["kscreen-doctor", "output.eDP-1.rotation.\(name)"]], "\(entry.orientation)")
            #expect(run.stderr.contains("backend kde: XDG_CURRENT_DESKTOP names KDE"))
        }
    }

    @Test("wlr-randr: --transform normal|90|180|270 on the enabled built-in output of its listing")
    func wlrRandrCapture() async throws {
        let fakes = try FakeTools()
        try fakes.add("wlr-randr", """
            [ $# -eq 0 ] && printf '%s\\n' 'DP-1 "Dell"' '  Enabled: yes' 'eDP-2 "Panel"' '  Enabled: no' 'eDP-1 "Panel"' '  Enabled: yes'
            exit 0
            """)
        let environment = fakes.environment(["WAYLAND_DISPLAY": "wayland-0"])
        for entry in Self.contract {
            fakes.clear()
            let run = try await Compositors.rotate(["--apply", entry.orientation], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(fakes.calls == [["wlr-randr"], ["wlr-randr", "--output", "eDP-1", "--transform", entry.wayland]], "\(entry.orientation)")
        }
    }

    @Test("command: the template split into arguments without a shell, placeholders filled inside each")
    func commandTemplate() async throws {
        let fakes = try FakeTools()
        try fakes.add("rotate-hook")
        let template = #"rotate-hook --out {output} "{orientation} is {rotation}" --deg={transform} '$HOME;{"x":1}' a\ b"#
        for entry in Self.contract {
            fakes.clear()
            let run = try await Compositors.rotate(["--apply", entry.orientation, "--command", template, "--output", "Built in"], environment: fakes.environment())
            #expect(run.status == 0, "\(run.stderr)")
            let degrees = entry.wayland == "normal" ? "0" : entry.wayland
            #expect(fakes.calls == [["rotate-hook", "--out", "Built in", "\(entry.orientation) is \(entry.xrandr)", "--deg=\(degrees)", #"$HOME;{"x":1}"#, "a b"]])
        }
        let dry = try await Compositors.rotate(["--apply", "left-up", "--command", "rotate-hook {rotation} 'x y'", "--dry-run"], environment: fakes.environment())
        #expect(dry.stdout == "rotate-hook left 'x y'\n")
    }

    @Test("usage errors exit 64: bad values, contradictions, an unknown placeholder, no session, GNOME")
    func usageErrors() async throws {
        let none = Compositors.environment()
        let cases: [([String], [String: String], String)] = [
            (["--debounce", "-1"], none, "--debounce"),
            (["--apply", "faceUp", "--backend", "sway"], none, "faceUp"),
            (["--apply", "portrait", "--replay", "-"], none, "exclude each other"),
            (["--command", "echo", "--backend", "sway"], none, "--command goes with --backend command"),
            (["--apply", "portrait", "--command", "echo {degrees}"], none, "unknown placeholder {degrees}"),
            (["--apply", "portrait", "--command", "echo {output}"], none, "name the output with --output"),
            (["--apply", "portrait", "--command", "echo 'open"], none, "unterminated"),
            (["--apply", "portrait"], none, "no graphical session found"),
            (["--apply", "portrait"], Compositors.environment(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "WAYLAND_DISPLAY": "wayland-0"]), "GNOME rotates the screen itself"),
        ]
        for (arguments, environment, message) in cases {
            let run = try await Compositors.rotate(arguments, environment: environment)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }

    // MARK: - Following orientations: debounce, hold, failures

    /// A wobble, a turn cut short by lying flat, a turn that holds, and a turn overtaken by
    /// another, which the replay ends on.
    static let wobblyEvents = events([
        (10.0, "portrait"),
        (11.0, "landscapeLeft"), (11.2, "portrait"),
        (12.0, "landscapeRight"), (12.1, "faceUp"),
        (13.0, "landscapeRight"), (13.5, "faceDown"),
        (14.0, "portraitUpsideDown"), (14.2, "landscapeLeft"),
    ])

    /// `--replay` of `events` through a dry-run command backend: the rotations and the log.
    static func replay(_ events: String, _ options: [String]) async throws -> (rotations: [String], output: ProcessOutput) {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("events.jsonl").path
        try events.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await Compositors.rotate(["--replay", file, "--dry-run", "--command", "rot {orientation}"] + options, environment: Compositors.environment())
        return (run.stdout.split(separator: "\n").map(String.init), run)
    }

    @Test("debounce: only orientations that held rotate, at the time they settled; flat and wobbles keep the rotation")
    func debounce() async throws {
        let (rotations, run) = try await Self.replay(Self.wobblyEvents, ["--debounce", "0.3"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(rotations == ["rot portrait", "rot landscapeRight", "rot landscapeLeft"])
        #expect(Self.lines(run.stderr, containing: "rotating to") == [
            "rotating to portrait at 10.300 s", "rotating to landscapeRight at 13.300 s", "rotating to landscapeLeft at 14.500 s",
        ])

        // A longer debounce also drops the turn that held 0.5 s.
        let (slower, _) = try await Self.replay(Self.wobblyEvents, ["--debounce", "0.6"])
        #expect(slower == ["rot portrait", "rot landscapeLeft"])
        // Without one, every change of upright orientation rotates, and a repeat does nothing.
        let (immediate, _) = try await Self.replay(Self.wobblyEvents, ["--debounce", "0"])
        #expect(immediate == ["rot portrait", "rot landscapeLeft", "rot portrait", "rot landscapeRight", "rot portraitUpsideDown", "rot landscapeLeft"])
        // Malformed lines and other event types are skipped with a word.
        let (mixed, skipped) = try await Self.replay(#"{"type":"shake","timestamp":1,"phase":"began"}"# + "\nnot json\n" + Self.events([(2, "landscapeLeft")]), [])
        #expect(mixed == ["rot landscapeLeft"])
        #expect(skipped.stderr.contains(":2: skipped"))
    }

    @Test("lock file: while it exists orientations settle but nothing rotates")
    func lockFile() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let lock = dir.appendingPathComponent("rotation.lock").path
        let (free, _) = try await Self.replay(Self.wobblyEvents, ["--lock-file", lock])
        #expect(free == ["rot portrait", "rot landscapeRight", "rot landscapeLeft"])
        _ = FileManager.default.createFile(atPath: lock, contents: nil)
        let (held, run) = try await Self.replay(Self.wobblyEvents, ["--lock-file", lock])
        #expect(held == [])
        #expect(run.stderr.contains("rotation held: \(lock) exists"))
        #expect(Self.lines(run.stderr, containing: "not rotating to").count == 3)
    }

    @Test("SIGUSR1 and the lock file hold rotation; the last release turns to the orientation that settled meanwhile")
    func holdAndRelease() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("events").path
        let lock = dir.appendingPathComponent("rotation.lock").path
        #expect(mkfifo(fifo, 0o600) == 0)
        _ = FileManager.default.createFile(atPath: lock, contents: nil)
        let helper = try RunningProcess([Compositors.motiondRotate, "--replay", fifo, "--lock-file", lock, "--dry-run", "--command", "rot {orientation}"],
                                        environment: Compositors.environment())
        #expect(await helper.wait(timeout: 10) { $0.stderr.contains("SIGUSR1 holds rotation") })
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        func send(_ events: [(Double, String)]) { writer.write(Data(Self.events(events).utf8)) }

        send([(0, "portrait"), (1, "landscapeLeft")])
        #expect(await helper.wait(timeout: 10) { $0.stderr.contains("not rotating to portrait at 0.300 s: rotation is held") })
        kill(helper.pid, SIGUSR1)
        #expect(await helper.wait(timeout: 10) { $0.stderr.contains("rotation held (SIGUSR1") })
        // The lock file goes, but SIGUSR1 still holds.
        try FileManager.default.removeItem(atPath: lock)
        send([(2, "faceUp")])
        #expect(await helper.wait(timeout: 10) { $0.stderr.contains("not rotating to landscapeLeft at 1.300 s") })
        #expect(helper.stderr.contains("\(lock) is gone: its hold is released"))
        #expect(helper.stdout == "")
        kill(helper.pid, SIGUSR1)
        #expect(await helper.wait(timeout: 10) { $0.stdout == "rot landscapeLeft\n" })
        #expect(helper.stderr.contains("rotating to landscapeLeft: the hold is released"))
        try writer.close()
        #expect(await helper.wait(timeout: 10) { _ in !helper.isRunning })
        #expect(helper.status == 0)
        #expect(helper.stdout == "rot landscapeLeft\n")
    }

    /// A trace: portrait 1.5 s, a quarter turn counter-clockwise in 1 s (right edge up:
    /// landscapeLeft), then still for `still` seconds.
    static func quarterTurn(in dir: URL, still: Double = 1.5) throws -> String {
        let g = 9.80665
        var rows = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for i in 0..<(250 + Int(still * 100)) {
            let angle = Double.pi / 2 * min(max(Double(i - 150) / 100, 0), 1)
            let turning = (150..<250).contains(i) ? Double.pi / 2 : 0
            rows.append("\(Double(i) / 100),0,0,\(turning),\(g * sin(angle)),\(g * cos(angle)),0")
        }
        let trace = dir.appendingPathComponent("turn.csv").path
        try rows.joined(separator: "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        return trace
    }

    /// motiond on a socket in `dir`, replaying ``quarterTurn(in:still:)`` and then 30 s still.
    static func turningDaemon(in dir: URL) throws -> (daemon: RunningProcess, socket: String) {
        let socket = dir.appendingPathComponent("motiond.sock").path
        let daemon = try RunningProcess([Emulation.motiond, "--no-config", "--source", "replay:\(try quarterTurn(in: dir, still: 30))",
                                         "--socket", socket, "--log-level", "notice"])
        return (daemon, socket)
    }

    @Test("end to end: motiond replaying a quarter turn, motiond-rotate following it over the socket, a real headless sway turned to 270",
          .enabled(if: Compositors.haveSway, "needs sway and swaymsg (and setpriv as root)"))
    func swayFollowsDaemon() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sway = try await HeadlessSway.start()
        let (daemon, socket) = try Self.turningDaemon(in: dir)
        defer { daemon.terminate() }
        let helper = try RunningProcess([Compositors.motiondRotate, "--socket", socket],
                                        environment: Compositors.environment(["SWAYSOCK": sway.socket]))
        defer { helper.forceStop() }
        #expect(await helper.wait(timeout: 15) { $0.stderr.contains("rotating to landscapeLeft") }, "\(helper.stderr)")
        #expect(Self.lines(helper.stderr, containing: "rotating to").map { $0.components(separatedBy: " at ").first ?? "" }
                == ["rotating to portrait", "rotating to landscapeLeft"], "\(helper.stderr)")
        #expect(try await sway.state(of: "HEADLESS-1").transform == "270")
    }

    /// motiond-rotate following the motiond at `socket` through its command backend (and
    /// `options`): each rotation a call of the fake `rotate-hook ORIENTATION`.
    static func follow(_ socket: String, _ options: [String] = []) throws -> (helper: RunningProcess, fakes: FakeTools) {
        let fakes = try FakeTools()
        try fakes.add("rotate-hook")
        let helper = try RunningProcess([Compositors.motiondRotate, "--socket", socket, "--command", "rotate-hook {orientation}"] + options,
                                        environment: fakes.environment())
        return (helper, fakes)
    }

    @Test("live: the orientation from a running motiond (simulated IMU) turns the screen once it has held")
    func liveFromDaemon() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("motiond.sock").path
        let daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--socket", socket, "--log-level", "notice"])
        defer { daemon.terminate() }
        let (helper, fakes) = try Self.follow(socket)
        defer { helper.forceStop() }
        // The simulated IMU lies face up, then stands up in portrait about 2 s in.
        #expect(await helper.wait(timeout: 15) { $0.stderr.contains("rotating to portrait at") }, "\(helper.stderr)")
        // The log line comes just before the command runs.
        #expect(await helper.wait(timeout: 5) { _ in !fakes.calls.isEmpty })
        #expect(fakes.calls.first == ["rotate-hook", "portrait"])
        #expect(helper.stderr.contains("connected to motiond at \(socket)"), "\(helper.stderr)")
    }

    @Test("at rest no thread of the helper wakes, a lock file watched: it sleeps until motiond sends (Swift concurrency's pool had libdispatch tick every second, the lock file was polled)")
    func restIsQuiet() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, socket) = try Self.turningDaemon(in: dir)
        defer { daemon.terminate() }
        let (helper, fakes) = try Self.follow(socket, ["--lock-file", dir.appendingPathComponent("rotation.lock").path])
        defer { helper.forceStop() }
        #expect(await helper.wait(timeout: 15) { $0.stderr.contains("rotating to landscapeLeft") }, "\(helper.stderr)")
        // The turn is over and has settled; the device lies still for the rest of the trace.
        try await Task.sleep(for: .seconds(1))
        let before = ThreadSwitches.of(helper.pid)
        try await Task.sleep(for: .seconds(4))
        let after = ThreadSwitches.of(helper.pid)
        let woke = ThreadSwitches.wokeMoreThanOnce(before, after)
        #expect(woke.isEmpty, "threads that woke in 4 s at rest: \(woke)")
        // The loop, SIGUSR1's, motiond's and the lock file's.
        #expect(after.count <= 4, "threads: \(after.values.map(\.name))")
        #expect(fakes.calls == [["rotate-hook", "portrait"], ["rotate-hook", "landscapeLeft"]])
    }

    @Test("live lock file: watched in its directory, each coming and going seen; a missing directory is looked at every second until it can be watched")
    func liveLockFile() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, socket) = try Self.turningDaemon(in: dir)
        defer { daemon.terminate() }
        let locks = dir.appendingPathComponent("locks").path
        let lock = locks + "/rotation.lock"
        let (helper, fakes) = try Self.follow(socket, ["--lock-file", lock])
        defer { helper.forceStop() }
        #expect(await helper.wait(timeout: 5) { $0.stderr.contains("cannot watch \(locks) for the lock file rotation.lock (No such file or directory): looking every 1 s") },
                "\(helper.stderr)")
        #expect(await helper.wait(timeout: 15) { _ in fakes.calls == [["rotate-hook", "portrait"], ["rotate-hook", "landscapeLeft"]] }, "\(helper.stderr)")
        try FileManager.default.createDirectory(atPath: locks, withIntermediateDirectories: false)
        #expect(await helper.wait(timeout: 5) { $0.stderr.contains("watching \(locks) for rotation.lock again") }, "\(helper.stderr)")
        // Watched now (restIsQuiet shows that a watched lock file costs no wake-ups).
        for round in 0..<2 {
            _ = FileManager.default.createFile(atPath: lock, contents: nil)
            #expect(await helper.wait(timeout: 5) { Self.lines($0.stderr, containing: "rotation held: \(lock) exists").count == round + 1 }, "\(helper.stderr)")
            try FileManager.default.removeItem(atPath: lock)
            #expect(await helper.wait(timeout: 5) { Self.lines($0.stderr, containing: "\(lock) is gone").count == round + 1 }, "\(helper.stderr)")
        }
    }

    @Test("motiond away: the helper says so in its log and keeps waiting")
    func daemonAway() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("absent.sock").path
        let helper = try RunningProcess([Compositors.motiondRotate, "--socket", socket, "--command", "true"], environment: Compositors.environment())
        defer { helper.forceStop() }
        #expect(await helper.wait(timeout: 5) { $0.stderr.contains("cannot reach motiond at \(socket): No such file or directory") }, "\(helper.stderr)")
        #expect(helper.isRunning)
    }

    @Test("motiond started after the helper, then restarted: the helper connects when it comes, and again after it went")
    func daemonComesAndGoes() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("motiond.sock").path
        let (helper, fakes) = try Self.follow(socket)
        defer { helper.forceStop() }
        #expect(await helper.wait(timeout: 5) { $0.stderr.contains("asking again in 1 s") }, "\(helper.stderr)")
        // The simulated IMU stands up in portrait about 2 s in.
        var daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--socket", socket, "--log-level", "notice"])
        #expect(await helper.wait(timeout: 15) { $0.stderr.contains("rotating to portrait at") }, "\(helper.stderr)")
        #expect(await helper.wait(timeout: 5) { _ in fakes.calls.first == ["rotate-hook", "portrait"] })
        daemon.terminate()
        #expect(await helper.wait(timeout: 5) { $0.stderr.contains("motiond closed the connection; asking again") }, "\(helper.stderr)")
        daemon = try RunningProcess([Emulation.motiond, "--source", "sim:", "--socket", socket, "--log-level", "notice"])
        defer { daemon.terminate() }
        #expect(await helper.wait(timeout: 15) { Self.lines($0.stderr, containing: "connected to motiond at \(socket)").count == 2 }, "\(helper.stderr)")
        #expect(helper.isRunning)
    }

    @Test("a failing command is logged with its stderr and the next orientation tries again")
    func failureKeepsGoing() async throws {
        let fakes = try FakeTools()
        let marker = fakes.directory.appendingPathComponent("failed-once").path
        try fakes.add("flaky", """
            [ -e '\(marker)' ] && exit 0
            : > '\(marker)'; echo 'display busy' >&2; exit 3
            """)
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("events.jsonl").path
        try Self.events([(0, "landscapeLeft"), (1, "portrait"), (2, "landscapeLeft")]).write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await Compositors.rotate(["--replay", file, "--command", "flaky {orientation}"], environment: fakes.environment())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("could not rotate to landscapeLeft: `flaky landscapeLeft` failed (exit 3): display busy"))
        // The failed turn is not taken as done: portrait rotates, and landscapeLeft once more.
        #expect(fakes.calls == [["flaky", "landscapeLeft"], ["flaky", "portrait"], ["flaky", "landscapeLeft"]])
    }
}
