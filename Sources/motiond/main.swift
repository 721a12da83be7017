import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Logging
import MotionCommandLine
import MotionConfiguration
import MotionCore
import MotionDaemon
import MotionIIO
import MotionProtocol

/// motiond: reads the motion sensors (accelerometer, gyroscope, magnetometer) — and the light and
/// proximity sensors beside them — of this machine
/// through IIO, or a simulated IMU, or a recorded trace.
struct Motiond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motiond",
        abstract: "Core Motion for Linux: reads IIO motion sensors and serves motion data.",
        discussion: """
        Sources: local: (this machine's IIO devices, default), ip:HOST[:PORT] (an iiod server), \
        sim: (a simulated IMU playing a scripted motion), replay:FILE.csv (a recorded trace).

        Settings come from the configuration file (\(ConfigurationFile.defaultPath) unless \
        --config names another); options given here win over the file's. SIGHUP reloads the file.
        """,
        version: MotionVersion.current)

    @Option(help: "Read settings from this TOML file (default \(ConfigurationFile.defaultPath), if it exists).")
    var config: String?

    @Flag(help: "Read no configuration file: built-in defaults and the options given.")
    var noConfig = false

    @Flag(help: "Check the configuration file and exit: 0 when motiond can use it, 78 (EX_CONFIG) and the reason when not.")
    var checkConfig = false

    /// What ConfigurationPreflight runs: the file read in a process of its own, nothing else.
    @Flag(help: .hidden)
    var parseConfig = false

    @Option(help: "Where samples come from: local: (default), ip:HOST[:PORT], sim:, replay:FILE.csv.")
    var source: String?

    @Option(help: "Serve clients on this Unix socket (default \(Wire.defaultSocketPath); with --print-samples or --print-motion, only when given).")
    var socket: String?

    @Flag(help: "Serve no socket.")
    var noSocket = false

    @Flag(help: "Serve iio-sensor-proxy's D-Bus API (net.hadess.SensorProxy) on the system bus, as [dbus] sensor-proxy = true does.")
    var sensorProxy = false

    @Flag(help: "List every sensor found, how it will be read and why, then exit.")
    var listSensors = false

    @Flag(help: "Machine-readable output: JSON for --list-sensors, JSON lines for samples.")
    var json = false

    @Option(help: "Seconds between samples while printing, 0.01–0.1 (clients choose their own).")
    var interval = 0.02

    @Option(parsing: .upToNextOption, help: "Sensors to use: accelerometer gyroscope magnetometer light proximity (default: all).")
    var sensors: [SensorKind] = []

    @Flag(help: "Print every sample on standard output.")
    var printSamples = false

    @Option(help: "Print device motion in this reference frame (xArbitraryZVertical, xArbitraryCorrectedZVertical, xMagneticNorthZVertical, xTrueNorthZVertical) at the gyroscope's rate.")
    var printMotion: String?

    @Option(help: "Keep the learned gyroscope bias and magnetometer calibration in this JSON file across restarts (default: the configuration's [state] path, when serving the socket on the configured source).")
    var stateFile: String?

    @Option(help: "Seconds between saves of a changing engine state (it is saved at exit too; default 30).")
    var stateSaveInterval: Double?

    @OptionGroup(title: "Motion engine")
    var engine: EngineOptions

    @Option(help: "Exit after printing this many samples (or device motion lines with --print-motion); implies --print-samples without --print-motion.")
    var count: Int?

    @Option(help: "Exit after this many seconds.")
    var duration: Double?

    @Option(help: "Mount matrix override, [DEVICE/]KIND=MATRIX, e.g. 'accelerometer=0, 1, 0; 1, 0, 0; 0, 0, -1'. Repeatable; wins over udev and sysfs.")
    var mountMatrix: [String] = []

    @Flag(help: "Replay a trace as fast as possible with its own timestamps instead of in real time.")
    var replayFast = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Where the log goes: journal (native journal entries with fields), stderr (text lines), or auto (the journal when standard error is connected to it, as under systemd).")
    var logTarget: LogTarget = .auto

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let duration, !(duration.isFinite && duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        if let stateSaveInterval, !(stateSaveInterval.isFinite && stateSaveInterval > 0) {
            throw ValidationError("--state-save-interval must be a positive number of seconds")
        }
        if noConfig && config != nil { throw ValidationError("--config and --no-config exclude each other") }
        if noConfig && checkConfig { throw ValidationError("--check-config and --no-config exclude each other") }
        if let printMotion, AttitudeReferenceFrame(name: printMotion) == nil {
            throw ValidationError("--print-motion \(printMotion): expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
        }
        if printMotion != nil && printSamples { throw ValidationError("--print-motion and --print-samples exclude each other") }
        if noSocket && socket != nil { throw ValidationError("--socket and --no-socket exclude each other") }
    }

    func run() throws {
        CrashTrace.install()
        logTarget.bootstrap(level: logLevel)
        let logger = Logger(label: "motiond")
        LibraryOutput.capture(logger: logger)
        if parseConfig {
            do {
                _ = try ConfigurationFile.load(config)
                return
            } catch {
                throw ExitCode(78)
            }
        }

        var overrides = CommandLineOverrides()
        let modelDate: Date?
        do {
            overrides.source = try source.map { try SourceURI(parsing: $0) }
            overrides.sensors = sensors.isEmpty ? nil : Set(sensors)
            overrides.mountMatrix = try mountMatrix.map { try MountMatrixOverride(parsing: $0) }
            overrides.magnetometerCalibration = try engine.calibrationMode()
            overrides.applyAxisCorrection = engine.applyAxisCorrection
            overrides.trueNorth = try engine.trueNorth()
            overrides.socketPath = socket
            overrides.sensorProxy = sensorProxy
            overrides.statePath = stateFile
            overrides.stateSaveInterval = stateSaveInterval
            modelDate = try engine.modelDate()
            _ = try SourceRequest(sensors.isEmpty ? SensorKind.allCases : sensors, period: interval)
        } catch {
            throw ValidationError("\(error)")
        }
        // The file is read again, with the same overrides, on every reload.
        let file = config
        let reread: (@Sendable () throws(ConfigurationError) -> DaemonConfiguration)? = noConfig ? nil : { @Sendable [overrides] () throws(ConfigurationError) in
            // A file the TOML library might abort on is read by a child first.
            let path = file ?? ConfigurationFile.defaultPath
            if access(path, F_OK) == 0 { try ConfigurationPreflight.check(path) }
            var configuration = try ConfigurationFile.load(file)
            overrides.apply(to: &configuration)
            return configuration
        }
        var configuration = DaemonConfiguration()
        do {
            if let reread {
                configuration = try reread()
            } else {
                overrides.apply(to: &configuration)
            }
        } catch {
            logger.critical("\(checkConfig ? "" : "cannot start with this configuration: ")\(error)")
            throw ExitCode(78) // EX_CONFIG
        }
        for ignored in configuration.ignoredKeys { logger.warning("\(ignored)") }
        if checkConfig {
            print("\(config ?? ConfigurationFile.defaultPath): OK")
            return
        }

        let uri = configuration.source
        var discovery = SensorDiscovery(overrides: configuration.mountMatrix, softwareTrigger: configuration.iio.softwareTrigger)
        discovery.sensorProxy = SensorProxyPeer.presence
        let made: MotionSource
        do {
            made = try SourceFactory.make(uri, discovery: discovery, replayPacing: replayFast ? .asFastAsPossible : .realtime, logger: logger)
        } catch {
            // A source the configuration file names (a trace that is no trace) is the file's
            // error, like every other: EX_CONFIG.
            if overrides.source == nil, !noConfig {
                logger.critical("cannot start with this configuration: \(config ?? ConfigurationFile.defaultPath): source: \(error)")
                throw ExitCode(78)
            }
            logger.error("\(error)")
            throw ExitCode.failure
        }

        if listSensors {
            let listing: SensorListing
            if let local = made as? LocalSource {
                do {
                    listing = try local.listing(source: uri.description)
                } catch {
                    logger.error("\(error)")
                    throw ExitCode.failure
                }
            } else if let iio = made as? IIOSource {
                do {
                    listing = SensorListing(source: uri.description, result: try iio.discover())
                } catch {
                    logger.error("\(error)")
                    throw ExitCode.failure
                }
            } else if let replay = made as? ReplaySource {
                listing = SensorListing(source: uri.description, provides: SensorKind.allCases.filter(replay.kinds.contains))
            } else {
                listing = SensorListing(source: uri.description, provides: SimulatedSource.kinds)
            }
            print(json ? listing.json() : listing.text(), terminator: json ? "\n" : "")
            return
        }

        let engineConfiguration: MotionEngine.Configuration
        do {
            engineConfiguration = try configuration.engineConfiguration(on: modelDate ?? Date())
        } catch {
            logger.critical("cannot start: true north: \(error)")
            throw ExitCode(78)
        }
        let printing: Daemon.Printing
        if let frame = printMotion.flatMap(AttitudeReferenceFrame.init(name:)) {
            printing = .motion(frame, json: json)
        } else if printSamples || count != nil {
            printing = .samples(json: json)
        } else {
            printing = .nothing
        }
        let printingOnly: Bool
        if case .nothing = printing { printingOnly = false } else { printingOnly = true }
        // Printing serves the socket only when one is named.
        let serveSocket = !noSocket && (!printingOnly || socket != nil)
        if !serveSocket && !printingOnly && !configuration.dbus.sensorProxy {
            logger.error("nothing to do: --no-socket without --print-samples, --print-motion or --sensor-proxy")
            throw ExitCode.failure
        }
        // The configured state file belongs to the configured setup: a run on another source
        // (a simulation, a replay) or one that only prints leaves it alone.
        let persistState = stateFile != nil || (serveSocket && source == nil)
        let options = Daemon.Options(configuration: configuration, modelDate: modelDate, serveSocket: serveSocket, printing: printing,
                                     printPeriod: interval, count: count, duration: duration, persistState: persistState, reread: reread)
        if serveSocket { DescriptorLimit.raise() }
        let daemon = Daemon(source: made, engine: engineConfiguration, options: options, logger: logger)
        // The end of a replay ends a run that only prints (there is nothing more to print); a
        // daemon serving clients keeps running (the source has logged the end).
        (made as? ReplaySource)?.whenEnded { summary in daemon.sourceEnded("\(summary)") }
        daemon.run()
    }
}

extension SensorKind: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogTarget: ExpressibleByArgument {}

Motiond.main()
