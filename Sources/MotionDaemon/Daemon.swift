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
/// `@unchecked Sendable`: `server`, `printer` and `signals` are set once in ``run()`` before
/// anything runs concurrently; `ending` and `running` are confined to the `lifecycle` queue
/// (signals, `--count`, `--duration` and reloads all end up there). `make check-tsan` runs the
/// daemon's tests (signals, reloads, counts) under ThreadSanitizer.
public final class Daemon: @unchecked Sendable {
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
    private var server: SocketServer?
    private var printer: Printer?
    /// The D-Bus face while `[dbus] sensor-proxy` is on: set on `lifecycle`, read by the
    /// pipeline's outbox.
    private let sensorProxy = Lock<SensorProxyBridge?>(nil)
    private let tabletMode = Lock<TabletModeBridge?>(nil)
    /// The `[convertible]` settings the running tablet-mode switch follows.
    private var tabletModeSettings: DaemonConfiguration.Convertible?
    private var signals: [DispatchSourceSignal] = []
    /// Serialises the ending and reloads (signals, count, duration may race).
    private let lifecycle = DispatchQueue(label: "motiond.lifecycle")
    private var ending = false
    private let notifier = SystemdNotifier()
    /// The configuration in force (confined to `lifecycle` once running).
    private var running: DaemonConfiguration

    /// `engine`: the motion engine's configuration, worked out from `options.configuration`
    /// by the caller (who reports a magnetic model that does not cover the date).
    public init(source: MotionSource, engine: MotionEngine.Configuration, options: Options, logger: Logger) {
        self.source = source
        self.options = options
        self.logger = logger
        running = options.configuration
        let state = options.configuration.state
        let store = options.persistState ? EngineStateStore(path: state.path, minimumInterval: state.saveInterval, logger: logger) : nil
        pipeline = Pipeline(source: source, engine: MotionEngine(configuration: engine, restoring: store?.load(for: engine)),
                            detectors: running.detectors, allowed: running.sensors, restInterval: running.restInterval,
                            store: store, logger: logger)
    }

    /// Runs until a signal, `--count` or `--duration` ends the process.
    public func run() -> Never {
        Heap.configure()
        // A closed output pipe or client socket is an error to handle, not a reason to die
        // before the buffers are disabled.
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: lifecycle)
            source.setEventHandler { [unowned self] in
                if number == SIGHUP { reload() } else { finish(number == SIGTERM ? "SIGTERM" : "SIGINT") }
            }
            source.resume()
            signals.append(source)
        }

        var local: [Subscription] = []
        let sensors = running.sensors, detectors = running.detectors
        switch options.printing {
        case .nothing:
            break
        case .samples(let json):
            printer = Printer(json: json, count: options.count, countedLines: "samples") { [unowned self] why in finish(why) }
            // The three-axis sensors' samples, a convertible's base accelerometer among them
            // (light and proximity: `motionctl monitor light`).
            local = SensorKind.allCases.filter { $0.isMotion && sensors.contains($0) }.map {
                Subscription(local: StreamName($0), frame: nil, period: options.printPeriod, detectors: detectors)
            }
            local.append(Subscription(local: .availability, frame: nil, period: options.printPeriod, detectors: detectors))
        case .motion(let frame, let json):
            printer = Printer(json: json, count: options.count, countedLines: "device motion lines") { [unowned self] why in finish(why) }
            local = [Subscription(local: .deviceMotion, frame: frame, period: options.printPeriod, detectors: detectors)]
        }
        pipeline.subscribeLocally(local)

        // The source starts first: its first availability reports are queued on the pipeline
        // before any client can connect, so every hello already names the sensors.
        let server = options.serveSocket
            ? SocketServer(socket: running.socket, policy: AccessPolicy(running.access, pollPeriod: running.pollPeriod), pipeline: pipeline, logger: logger) : nil
        self.server = server
        let printer = self.printer
        let sensorProxy = self.sensorProxy
        let tabletMode = self.tabletMode
        do {
            try pipeline.start { batch in
                // The daemon's own subscribers (its printing, the D-Bus face) take theirs; the
                // rest is the socket clients'.
                var clients = batch
                if batch.contains(where: { $0.client == .local || $0.client == .sensorProxy || $0.client == .tabletMode }) {
                    var printed: [OutgoingMessage] = [], proxied: [ServerMessage] = [], switched: [ServerMessage] = []
                    clients = []
                    for item in batch {
                        switch item.client {
                        case .local: printed.append(item.message)
                        case .sensorProxy: proxied.append(item.message.message)
                        case .tabletMode: switched.append(item.message.message)
                        default: clients.append(item)
                        }
                    }
                    if let printer, !printed.isEmpty { printer.print(printed) }
                    if !proxied.isEmpty { sensorProxy.withLock { $0 }?.deliver(proxied) }
                    if !switched.isEmpty { tabletMode.withLock { $0 }?.deliver(switched) }
                    if clients.isEmpty { return }
                }
                server?.deliver(clients)
            }
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
        pipeline.startHousekeeping(notifier: notifier) { server?.clientCount ?? 0 }
        notifier.ready(status: pipeline.currentStatusLine(clients: 0))
        // Starting is over: its code need not stay resident (a tenth of a second later, so the
        // first client's requests find the common paths already faulted back).
        lifecycle.asyncAfter(deadline: .now() + 0.1) { CodePages.release() }
        if let duration = options.duration {
            lifecycle.asyncAfter(deadline: .now() + duration) { [unowned self] in finish("--duration elapsed") }
        }
        dispatchMain()
    }

    /// SIGHUP (`systemctl reload`): reads the configuration again. A file that cannot be used
    /// changes nothing (the error says why); otherwise the settings a running daemon can change
    /// take effect at once and the log names any that wait for a restart.
    private func reload() {
        notifier.reloading()
        defer { notifier.ready(status: pipeline.currentStatusLine(clients: server?.clientCount ?? 0)) }
        guard let reread = options.reread else {
            logger.notice("reload requested (SIGHUP): no configuration file in use (--no-config), nothing to reload")
            return
        }
        let reload: ConfigurationReload
        let engine: MotionEngine.Configuration
        do {
            reload = ConfigurationReload(running: running, new: try reread())
            engine = try reload.applied.engineConfiguration(on: options.modelDate ?? Date())
        } catch {
            logger.error("configuration not reloaded, the one in use stays: \(error)")
            return
        }
        running = reload.applied
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

    /// Starts or stops the D-Bus face as `[dbus] sensor-proxy` now says. On `lifecycle`.
    private func applySensorProxy() {
        let wanted = running.dbus.sensorProxy
        let current = sensorProxy.withLock { $0 }
        if wanted, current == nil {
            let bridge = SensorProxyBridge(pipeline: pipeline, logger: logger)
            sensorProxy.withLock { $0 = bridge }
            bridge.start()
        } else if !wanted, let current {
            sensorProxy.withLock { $0 = nil }
            current.stop()
            logger.notice("net.hadess.SensorProxy given up: [dbus] sensor-proxy is off")
        }
    }

    /// Starts, restarts or stops the tablet-mode switch as `[convertible]` now says (`auto`:
    /// only on a machine without a switch of its own); unchanged settings leave it be. On
    /// `lifecycle`.
    private func applyTabletMode() {
        let settings = running.convertible
        guard settings != tabletModeSettings else { return }
        tabletModeSettings = settings
        var wanted = settings.tabletModeSwitch != .off && options.serveSocket
        if wanted, settings.tabletModeSwitch == .auto {
            let own = TabletModeSwitches.native()
            if !own.isEmpty {
                wanted = false
                logger.info("the machine has a tablet-mode switch of its own (\(own.joined(separator: ", "))): motiond offers none ([convertible] tablet-mode-switch = \"auto\")")
            }
        }
        let current = tabletMode.withLock { $0 }
        current?.stop()
        tabletMode.withLock { $0 = nil }
        guard wanted else { return }
        let bridge = TabletModeBridge(pipeline: pipeline, postures: settings.tabletModePostures, logger: logger)
        tabletMode.withLock { $0 = bridge }
        bridge.start()
    }

    /// The source has nothing more to give (a replay reached the end of its trace; `why` says
    /// so). A run that only prints exits 0, saying how many lines it printed (`--count` is not
    /// waited for); a daemon serving clients keeps running. Call on the pipeline's queue (as
    /// source events are delivered) after the source's last samples, so they are printed first.
    public func sourceEnded(_ why: String) {
        guard let printer, !options.serveSocket else { return }
        // Called after the last samples were handled, whose output went to the printer then.
        lifecycle.async { [self] in
            printer.drain()
            finish("\(why); printed \(printer.printedLines)")
        }
    }

    /// Stops everything in order and exits 0.
    private func finish(_ why: String) {
        lifecycle.async { [self] in
            guard !ending else { return }
            ending = true
            logger.info("stopping: \(why)")
            notifier.stopping(why)
            sensorProxy.withLock { $0 }?.stop()
            tabletMode.withLock { $0 }?.stop()
            pipeline.stop()
            printer?.drain()
            server?.stop(reason: "motiond is stopping (\(why))")
            exit(0)
        }
    }
}
