import ArgumentParser
import FoundationEssentials
import MotionProtocol

/// motiond-rotate: turns the display (and touch input) to follow the device orientation that
/// motiond reports. Exit status 0, 64 for a usage error (including no graphical session to
/// detect), 1 when `--apply` could not rotate. The `motionctl` binary runs it when started as
/// `motiond-rotate` (a link to it).
public struct RotateCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "motiond-rotate",
        abstract: "Rotate the display and touch input to follow the device orientation from motiond.",
        discussion: """
            Only the four upright orientations rotate; flat (faceUp, faceDown) and unknown keep the \
            current rotation. An orientation must hold for --debounce seconds first. Rotation is \
            held while --lock-file exists; SIGUSR1 holds it and releases it again. A command that \
            fails is logged with what it said, and the next orientation tries again.

            Backends: sway (swaymsg output transform; touch and pen mapped to the output), \
            wlr-randr (other wlroots compositors), hyprland (hyprctl keyword monitor), kde \
            (kscreen-doctor), x11 (xrandr --rotate, plus xinput's Coordinate Transformation Matrix \
            for each --touch-device) and command (--command TEMPLATE with {output} {transform} \
            {rotation} {orientation}, split into arguments without a shell). auto picks from the \
            environment: SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE, XDG_CURRENT_DESKTOP=KDE, \
            WAYLAND_DISPLAY, DISPLAY, in that order.
            """,
        version: MotionVersion.current)

    @Option(name: .customLong("socket"), help: ArgumentHelp("motiond's socket (default /run/motiond/motiond.sock, or $MOTIOND_SOCKET).", valueName: "path"))
    var socketPath: String?

    @Option(help: ArgumentHelp("How to rotate (auto: detect the session).", valueName: "backend"))
    var backend: BackendKind = .auto

    @Option(help: ArgumentHelp("The output to rotate (default: the built-in panel, else the first active output).", valueName: "name"))
    var output: String?

    @Option(name: .customLong("touch-device"), help: ArgumentHelp(
        "A touch screen or pen to turn with the display: an xinput device (x11) or a sway input identifier (sway; default type:touch and type:tablet_tool). Repeatable.",
        valueName: "name"))
    var touchDevices: [String] = []

    @Option(name: .customLong("command"), help: ArgumentHelp(
        "Rotate by running this command (implies --backend command); placeholders {output} {transform} {rotation} {orientation}.",
        valueName: "template"))
    var commandTemplate: String?

    @Option(help: ArgumentHelp("How long an orientation must hold before the screen follows (seconds).", valueName: "seconds"))
    var debounce: Double = 0.3

    @Option(name: .customLong("lock-file"), help: ArgumentHelp("Hold rotation while this file exists (its directory is watched: creating or removing it takes effect at once).", valueName: "path"))
    var lockFile: String?

    @Flag(help: "Print the commands instead of running them (queries for the output still run).")
    var dryRun = false

    @Option(help: ArgumentHelp("Rotate once for this orientation and exit; the lock does not apply.", valueName: "orientation"))
    var apply: OrientationArgument?

    @Option(help: ArgumentHelp(
        "Follow orientation events from a file of JSON lines (motionctl analyze --json, motionctl monitor --json orientation; - for standard input) on their own timestamps, instead of motiond.",
        valueName: "file"))
    var replay: String?

    public init() {}

    public func validate() throws {
        guard debounce.isFinite, debounce >= 0 else { throw ValidationError("--debounce \(debounce): expected seconds ≥ 0") }
        if apply != nil && replay != nil { throw ValidationError("--apply and --replay exclude each other") }
        if let replay, replay != "-", !FileManager.default.fileExists(atPath: replay) {
            throw ValidationError("--replay \(replay): no such file")
        }
        if commandTemplate != nil && ![.auto, .command].contains(backend) {
            throw ValidationError("--command goes with --backend command, not \(backend.rawValue)")
        }
        if backend == .command && commandTemplate == nil { throw ValidationError("--backend command needs --command TEMPLATE") }
    }

    public func run() throws {
        let display = try makeBackend()
        var rotator = Rotator(backend: display, output: output, dryRun: dryRun)
        if let apply {
            guard rotator.rotate(to: apply.rotation) else { throw ExitCode.failure }
            return
        }
        var controller = RotationController(policy: RotationPolicy(debounce: debounce), rotator: rotator, lockFile: lockFile)
        // Swift concurrency is not used: its global executor's thread pool would have
        // libdispatch wake the helper every second for the life of the process.
        let inbox = RotationInbox()
        do {
            // First: the threads started below inherit SIGUSR1 blocked.
            try RotationLoop.forwardHoldSignal(to: inbox)
            if let replay {
                ReplayOrientations.start(path: replay, into: inbox)
                RotationLoop.run(&controller, inbox: inbox, timing: .replay, source: replay == "-" ? "standard input" : replay)
                return
            }
            let clock = ElapsedClock()
            // The one place orientations come from live; everything downstream is fed by RotationInput.
            try LiveOrientations.start(socket: DaemonSocket.path(socketPath), clock: clock, into: inbox)
            if let lockFile { try LockFileWatch.start(path: lockFile, clock: clock, into: inbox) }
            RotationLoop.run(&controller, inbox: inbox, timing: .live(clock), source: "motiond (\(socketPath ?? "its default socket"))")
        } catch {
            Log.warning("cannot start: no thread to read on (\(error))")
            throw ExitCode.failure
        }
    }

    /// The chosen or detected backend, the choice logged; a usage error when it cannot work.
    private func makeBackend() throws -> any DisplayBackend {
        var kind = backend
        if kind == .auto, commandTemplate != nil { kind = .command }
        if kind == .auto {
            do {
                let detected = try BackendKind.detect(in: ProcessInfo.processInfo.environment)
                kind = detected.kind
                Log.info("backend \(kind.rawValue): \(detected.reason)")
            } catch {
                throw ValidationError(error.description)
            }
        }
        if !touchDevices.isEmpty && ![.sway, .x11].contains(kind) {
            Log.warning("--touch-device is for the sway and x11 backends; \(kind.rawValue) turns touch input with the display itself")
        }
        switch kind {
        case .sway, .auto:  // auto is resolved above
            return SwayBackend(inputs: touchDevices.isEmpty ? ["type:touch", "type:tablet_tool"] : touchDevices)
        case .wlrRandr:
            return WlrRandrBackend()
        case .hyprland:
            return HyprlandBackend()
        case .kde:
            return KDEBackend()
        case .x11:
            return X11Backend(touchDevices: touchDevices)
        case .command:
            let template: CommandTemplate
            do {
                template = try CommandTemplate(commandTemplate ?? "")
            } catch {
                throw ValidationError("--command: \(error.description)")
            }
            if template.usesOutput && output == nil { throw ValidationError("--command uses {output}: name the output with --output") }
            return CommandBackend(template: template)
        }
    }
}
