import Dispatch
import FoundationEssentials
import Glibc
import Logging
import MotionConfiguration
import MotionCore
import MotionIIO
import MotionProtocol
import MotionSync

/// The running daemon: the pipeline, the socket server and the daemon's own printing, and
/// their lifecycle. SIGTERM and SIGINT stop the source (buffers disabled, triggers detached),
/// save the engine state, say goodbye to every client and exit 0; so do `--count` and
/// `--duration`. SIGHUP reloads the configuration file. Under systemd it reports readiness,
/// status and watchdog pings (sd_notify) and adopts a socket systemd passes (socket
/// activation).
///
/// With `[dbus] sensor-proxy` it also serves iio-sensor-proxy's D-Bus API
/// (``SensorProxyBridge``), switched on and off by reloads.
///
/// Sendable, checked: the mutable state (``Running``) is behind a `Lock`, used on the
/// `lifecycle` queue (signals, `--count`, `--duration` and reloads all end up there) and, for
/// the printer, once from the pipeline's queue at the end of a replay.
public final class Daemon: Sendable {
    /// What the daemon prints on standard output itself (besides serving the socket).
    public enum Printing: Sendable {
        case nothing
        /// Every sample of the sensors read (and their availability).
        case samples(json: Bool)
        /// Device motion in a frame at the fusion's rate.
        case motion(AttitudeReferenceFrame, json: Bool)
    }

    public struct Options: Sendable {
        /// The configuration file's settings with the command line's laid over them.
        public var configuration: DaemonConfiguration
        /// The day the magnetic model gives the declination for (nil: the day of starting, or
        /// of reloading).
        public var modelDate: Date?
        /// Whether to serve clients on `configuration.socket` (else only printing).
        public var serveSocket: Bool
        public var printing: Printing
        /// The hardware period while printing, seconds.
        public var printPeriod: Double
        public var count: Int?
        public var duration: Double?
        /// Whether the engine state is kept in `configuration.state.path`.
        public var persistState: Bool
        /// Reads the configuration again for a reload (SIGHUP): the file with the same
        /// command-line overrides. nil when no file is in use.
        public var reread: (@Sendable () throws(ConfigurationError) -> DaemonConfiguration)?

        public init(configuration: DaemonConfiguration, modelDate: Date? = nil, serveSocket: Bool, printing: Printing,
                    printPeriod: Double, count: Int? = nil, duration: Double? = nil, persistState: Bool,
                    reread: (@Sendable () throws(ConfigurationError) -> DaemonConfiguration)? = nil) {
            self.configuration = configuration
            self.modelDate = modelDate
            self.serveSocket = serveSocket
            self.printing = printing
            self.printPeriod = printPeriod
            self.count = count
            self.duration = duration
            self.persistState = persistState
            self.reread = reread
        }
    }

    private let source: MotionSource
    private let options: Options
    private let logger: Logger
    private let pipeline: Pipeline
    private let server: SocketServer?
    /// Serialises the ending and reloads (signals, count, duration may race).
    private let lifecycle = DispatchQueue(label: "motiond.lifecycle")
    private let notifier = SystemdNotifier()
    private let state: Lock<Running>

    /// What changes while the daemon runs.
    private struct Running {
        /// The configuration in force.
        var configuration: DaemonConfiguration
        var printer: Printer?
        /// The D-Bus face while `[dbus] sensor-proxy` is on.
        var sensorProxy: SensorProxyBridge?
        var tabletMode: TabletModeBridge?
        /// The `[convertible]` settings the running tablet-mode switch follows.
        var tabletModeSettings: DaemonConfiguration.Convertible?
        var ending = false
    }

    /// `engine`: the motion engine's configuration, worked out from `options.configuration`
    /// by the caller (who reports a magnetic model that does not cover the date).
    public init(source: MotionSource, engine: MotionEngine.Configuration, options: Options, logger: Logger) {
        self.source = source
        self.options = options
        self.logger = logger
        let running = options.configuration
        state = Lock(Running(configuration: running))
        let store = options.persistState ? EngineStateStore(path: running.state.path, minimumInterval: running.state.saveInterval, logger: logger) : nil
        let pipeline = Pipeline(source: source, engine: MotionEngine(configuration: engine, restoring: store?.load(for: engine)),
                                detectors: running.detectors, allowed: running.sensors, restInterval: running.restInterval,
                                store: store, logger: logger)
        self.pipeline = pipeline
        server = options.serveSocket
            ? SocketServer(socket: running.socket, policy: AccessPolicy(running.access, pollPeriod: running.pollPeriod), pipeline: pipeline, logger: logger)
            : nil
    }

    /// Runs until a signal, `--count` or `--duration` ends the process.
    public func run() -> Never {
        Heap.configure()
        // A closed output pipe or client socket is an error to handle, not a reason to die
        // before the buffers are disabled.
        signal(SIGPIPE, SIG_IGN)
        var signals: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: lifecycle)
            source.setEventHandler { [unowned self] in
                if number == SIGHUP { reload() } else { finish(number == SIGTERM ? "SIGTERM" : "SIGINT") }
            }
            source.resume()
            signals.append(source)
        }
        let printer = makePrinter()
        state.withLock { $0.printer = printer?.printer }
        if let printer { pipeline.attach(printer.printer, as: .printer, subscriptions: printer.subscriptions) }

        // The source starts first: its first availability reports are queued on the pipeline
        // before any client can connect, so every hello already names the sensors.
        let server = self.server
        do {
            try pipeline.start(clients: { server?.clientCount ?? 0 }) { batch in server?.deliver(batch) }
        } catch {
            logger.error("\(error)")
            exit(1)
        }
        do {
            try server?.start(adopting: SocketActivation.listeningSocket())
        } catch {
            logger.error("cannot serve clients: \(error)")
            pipeline.stop()
            exit(1)
        }
        lifecycle.sync {
            applySensorProxy()
            applyTabletMode()
        }
        pipeline.startHousekeeping(notifier: notifier)
        notifier.ready(status: pipeline.currentStatusLine())
        // Starting is over: its code need not stay resident (a tenth of a second later, so the
        // first client's requests find the common paths already faulted back).
        lifecycle.asyncAfter(deadline: .now() + 0.1) {
            CodePages.release()
            Heap.trim()
        }
        if let duration = options.duration {
            lifecycle.asyncAfter(deadline: .now() + duration) { [unowned self] in finish("--duration elapsed") }
        }
        // Starting is over on this thread too: from here on it only waits.
        ThreadStack.releaseBelowCurrentFrame()
        // The signal sources live as long as the process.
        withExtendedLifetime(signals) { dispatchMain() }
    }

    /// The daemon's own printing (`--print-samples`, `--print-motion`) and what it subscribes
    /// to; nil when it prints nothing.
    private func makePrinter() -> (printer: Printer, subscriptions: [Subscription])? {
        let sensors = options.configuration.sensors, detectors = options.configuration.detectors
        let end: @Sendable (String) -> Void = { [unowned self] why in finish(why) }
        switch options.printing {
        case .nothing:
            return nil
        case .samples(let json):
            // The three-axis sensors' samples, a convertible's base accelerometer among them
            // (light and proximity: `motionctl monitor light`), and their availability.
            let streams = SensorKind.allCases.filter { $0.isMotion && sensors.contains($0) }.map(StreamName.init) + [.availability]
            return (Printer(json: json, count: options.count, countedLines: "samples", finish: end),
                    streams.map { Subscription(local: $0, frame: nil, period: options.printPeriod, detectors: detectors) })
        case .motion(let frame, let json):
            return (Printer(json: json, count: options.count, countedLines: "device motion lines", finish: end),
                    [Subscription(local: .deviceMotion, frame: frame, period: options.printPeriod, detectors: detectors)])
        }
    }

    /// SIGHUP (`systemctl reload`): reads the configuration again. A file that cannot be used
    /// changes nothing (the error says why); otherwise the settings a running daemon can change
    /// take effect at once and the log names any that wait for a restart. On `lifecycle`.
    private func reload() {
        lifecycle.assertOnQueue()
        notifier.reloading()
        defer { notifier.ready(status: pipeline.currentStatusLine()) }
        guard let reread = options.reread else {
            logger.notice("reload requested (SIGHUP): no configuration file in use (--no-config), nothing to reload")
            return
        }
        let reload: ConfigurationReload
        let engine: MotionEngine.Configuration
        do {
            let new = try reread()
            for ignored in new.ignoredKeys { logger.warning("\(ignored)") }
            reload = ConfigurationReload(running: state.withLock { $0.configuration }, new: new)
            engine = try reload.applied.engineConfiguration(on: options.modelDate ?? Date())
        } catch {
            logger.error("configuration not reloaded, the one in use stays: \(error)")
            return
        }
        let running = reload.applied
        state.withLock { $0.configuration = running }
        pipeline.reconfigure(engine: engine, detectors: running.detectors, restInterval: running.restInterval)
        server?.reconfigure(socket: running.socket, policy: AccessPolicy(running.access, pollPeriod: running.pollPeriod))
        applySensorProxy()
        applyTabletMode()
        let changed = reload.changed.isEmpty ? "nothing changed" : "changed: \(reload.changed.joined(separator: ", "))"
        logger.notice("configuration reloaded (\(changed))")
        if !reload.waitingForRestart.isEmpty {
            logger.warning("configuration changes that take effect only when motiond restarts: \(reload.waitingForRestart.joined(separator: ", "))")
        }
    }

    /// Starts or stops the D-Bus face as `[dbus] sensor-proxy` now says. On `lifecycle` (the
    /// bridge is started and stopped outside the lock: both wait for the pipeline's queue).
    private func applySensorProxy() {
        lifecycle.assertOnQueue()
        let (wanted, current) = state.withLock { ($0.configuration.dbus.sensorProxy, $0.sensorProxy) }
        if wanted, current == nil {
            let bridge = SensorProxyBridge(pipeline: pipeline, logger: logger)
            state.withLock { $0.sensorProxy = bridge }
            bridge.start()
        } else if !wanted, let current {
            state.withLock { $0.sensorProxy = nil }
            current.stop()
            logger.notice("net.hadess.SensorProxy given up: [dbus] sensor-proxy is off")
        }
    }

    /// Starts, restarts or stops the tablet-mode switch as `[convertible]` now says (`auto`:
    /// only on a machine without a switch of its own); unchanged settings leave it be. On
    /// `lifecycle`.
    private func applyTabletMode() {
        lifecycle.assertOnQueue()
        let change = state.withLock { state -> (settings: DaemonConfiguration.Convertible, current: TabletModeBridge?)? in
            let settings = state.configuration.convertible
            guard settings != state.tabletModeSettings else { return nil }
            state.tabletModeSettings = settings
            defer { state.tabletMode = nil }
            return (settings, state.tabletMode)
        }
        guard let (settings, current) = change else { return }
        current?.stop()
        var wanted = settings.tabletModeSwitch != .off && options.serveSocket
        if wanted, settings.tabletModeSwitch == .auto {
            let own = TabletModeSwitches.native()
            if !own.isEmpty {
                wanted = false
                logger.info("the machine has a tablet-mode switch of its own (\(own.joined(separator: ", "))): motiond offers none ([convertible] tablet-mode-switch = \"auto\")")
            }
        }
        guard wanted else { return }
        let bridge = TabletModeBridge(pipeline: pipeline, postures: settings.tabletModePostures, logger: logger)
        state.withLock { $0.tabletMode = bridge }
        bridge.start()
    }

    /// The source has nothing more to give (a replay reached the end of its trace; `why` says
    /// so). A run that only prints exits 0, saying how many lines it printed (`--count` is not
    /// waited for); a daemon serving clients keeps running. Call on the pipeline's queue (as
    /// source events are delivered) after the source's last samples, so they are printed first.
    public func sourceEnded(_ why: String) {
        guard let printer = state.withLock({ $0.printer }), !options.serveSocket else { return }
        // Called after the last samples were handled, whose output went to the printer then.
        lifecycle.async { [self] in
            printer.drain()
            finish("\(why); printed \(printer.printedLines)")
        }
    }

    /// Stops everything in order and exits 0.
    private func finish(_ why: String) {
        lifecycle.async { [self] in
            let running = state.withLock { state -> Running? in
                guard !state.ending else { return nil }
                state.ending = true
                return state
            }
            guard let running else { return }
            logger.info("stopping: \(why)")
            notifier.stopping(why)
            running.sensorProxy?.stop()
            running.tabletMode?.stop()
            pipeline.stop()
            running.printer?.drain()
            server?.stop(reason: "motiond is stopping (\(why))")
            exit(0)
        }
    }
}
