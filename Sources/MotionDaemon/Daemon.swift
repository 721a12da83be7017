import Dispatch
import Glibc
import Logging
import MotionCore
import MotionIIO
import MotionProtocol

/// The running daemon: the pipeline, the socket server and the daemon's own printing, and
/// their lifecycle. SIGTERM and SIGINT stop the source (buffers disabled, triggers detached),
/// save the engine state, say goodbye to every client and exit 0; so do `--count` and
/// `--duration`. Under systemd it reports readiness, status and watchdog pings (sd_notify) and
/// adopts a socket systemd passes (socket activation).
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
        /// The socket path, or nil to serve no socket (printing only).
        public var socketPath: String?
        public var printing: Printing
        /// Sensors the daemon may use; with printing, the ones it reads.
        public var sensors: Set<SensorKind>
        /// The hardware period while printing, seconds.
        public var printPeriod: Double
        public var count: Int?
        public var duration: Double?
        public var detectors: DetectorConfiguration
        public var stateFile: String?
        /// Seconds between saves of a changing engine state.
        public var stateSaveInterval: Double

        public init(socketPath: String?, printing: Printing, sensors: Set<SensorKind>, printPeriod: Double, count: Int?,
                    duration: Double?, detectors: DetectorConfiguration, stateFile: String?, stateSaveInterval: Double = 30) {
            self.socketPath = socketPath
            self.printing = printing
            self.sensors = sensors
            self.printPeriod = printPeriod
            self.count = count
            self.duration = duration
            self.detectors = detectors
            self.stateFile = stateFile
            self.stateSaveInterval = stateSaveInterval
        }
    }

    private let source: MotionSource
    private let options: Options
    private let logger: Logger
    private let pipeline: Pipeline
    private var server: SocketServer?
    private var printer: Printer?
    private var signals: [DispatchSourceSignal] = []
    /// Serialises the ending (signals, count, duration may race).
    private let lifecycle = DispatchQueue(label: "motiond.lifecycle")
    private var ending = false
    private let notifier = SystemdNotifier()

    public init(source: MotionSource, configuration: MotionEngine.Configuration, options: Options, logger: Logger) {
        self.source = source
        self.options = options
        self.logger = logger
        let store = options.stateFile.map { EngineStateStore(path: $0, minimumInterval: options.stateSaveInterval, logger: logger) }
        pipeline = Pipeline(source: source, engine: MotionEngine(configuration: configuration, restoring: store?.load()),
                            detectors: options.detectors, allowed: options.sensors, store: store, logger: logger)
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
        switch options.printing {
        case .nothing:
            break
        case .samples(let json):
            printer = Printer(json: json, count: options.count, countedLines: "samples") { [unowned self] why in finish(why) }
            local = SensorKind.allCases.filter(options.sensors.contains).map {
                Subscription(local: StreamName($0), frame: nil, period: options.printPeriod, detectors: options.detectors)
            }
            local.append(Subscription(local: .availability, frame: nil, period: options.printPeriod, detectors: options.detectors))
        case .motion(let frame, let json):
            printer = Printer(json: json, count: options.count, countedLines: "device motion lines") { [unowned self] why in finish(why) }
            local = [Subscription(local: .deviceMotion, frame: frame, period: options.printPeriod, detectors: options.detectors)]
        }
        pipeline.subscribeLocally(local)

        // The source starts first: its first availability reports are queued on the pipeline
        // before any client can connect, so every hello already names the sensors.
        let server = options.socketPath.map { SocketServer(path: $0, pipeline: pipeline, logger: logger) }
        self.server = server
        let printer = self.printer
        do {
            try pipeline.start { batch in
                if let printer {
                    let mine = batch.filter { $0.client == .local }.map(\.message)
                    if !mine.isEmpty { printer.print(mine) }
                    if mine.count == batch.count { return }
                }
                server?.deliver(batch)
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
        pipeline.startHousekeeping(notifier: notifier) { server?.clientCount ?? 0 }
        notifier.ready(status: pipeline.currentStatusLine(clients: 0))
        if let duration = options.duration {
            lifecycle.asyncAfter(deadline: .now() + duration) { [unowned self] in finish("--duration elapsed") }
        }
        dispatchMain()
    }

    /// SIGHUP (`systemctl reload`): there is no configuration file to read again yet, so the
    /// daemon says so and carries on unchanged.
    private func reload() {
        notifier.reloading()
        logger.notice("reload requested (SIGHUP): no configuration file in use, nothing to reload")
        notifier.ready(status: pipeline.currentStatusLine(clients: server?.clientCount ?? 0))
    }

    /// Stops everything in order and exits 0.
    private func finish(_ why: String) {
        lifecycle.async { [self] in
            guard !ending else { return }
            ending = true
            logger.info("stopping: \(why)")
            notifier.stopping(why)
            pipeline.stop()
            printer?.drain()
            server?.stop(reason: "motiond is stopping (\(why))")
            exit(0)
        }
    }
}
