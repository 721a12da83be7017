import Dispatch
import Foundation
import Logging
import MotionCore
import MotionIIO

/// Runs a source until a signal, `--count` or `--duration` ends it, on the one serial
/// pipeline queue: every sample goes through the motion engine (whose notable events are
/// logged), and samples, device motion or a once-per-second rate summary are printed.
final class Runner: @unchecked Sendable {
    /// What goes to standard output.
    enum Output {
        /// A rate summary once a second, on the log.
        case summary
        /// Every sample.
        case samples(SampleWriter)
        /// Device motion in a frame, once per gyroscope sample (the fusion's own rate).
        case motion(SampleWriter, AttitudeReferenceFrame)

        /// What `--count` counts.
        var countedLines: String {
            if case .motion = self { return "device motion lines" }
            return "samples"
        }
    }

    private let source: MotionSource
    private let request: SourceRequest
    private let output: Output
    private let count: Int?
    private let duration: Double?
    private let store: EngineStateStore?
    private let logger: Logger
    private let pipeline = DispatchQueue(label: "motiond.pipeline")
    // Confined to `pipeline`.
    private var engine: MotionEngine
    private var anchor: FrameAnchor?
    private var unavailable: DeviceMotionUnavailable?
    private var printed = 0
    private var perKind: [SensorKind: Int] = [:]
    private var timers: [DispatchSourceProtocol] = []

    init(source: MotionSource, request: SourceRequest, engine: MotionEngine, output: Output, count: Int?, duration: Double?,
         store: EngineStateStore?, logger: Logger) {
        self.source = source
        self.request = request
        self.engine = engine
        self.output = output
        self.count = count
        self.duration = duration
        self.store = store
        self.logger = logger
    }

    func run() throws -> Never {
        // A closed output pipe (`| head`) is an error to handle, not a reason to die before
        // the buffers are disabled.
        Glibc.signal(SIGPIPE, SIG_IGN)
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: pipeline)
            source.setEventHandler { [unowned self] in finish("signal \(signal)") }
            source.resume()
            timers.append(source)
        }
        do {
            try source.start(request, queue: pipeline) { [unowned self] event in handle(event) }
        } catch {
            logger.error("\(error)")
            exit(1)
        }
        logger.info("motiond reading \(source.uri)")
        if let duration {
            pipeline.asyncAfter(deadline: .now() + duration) { [unowned self] in finish("--duration elapsed") }
        }
        if case .summary = output { every(1) { [unowned self] in summarize() } }
        if let store { every(60) { [unowned self] in store.save(engine.persistentState) } }
        dispatchMain()
    }

    private func every(_ seconds: Double, _ work: @escaping () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: pipeline)
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler(handler: work)
        timer.resume()
        timers.append(timer)
    }

    private func handle(_ event: SourceEvent) {
        switch event {
        case .sample(let sample):
            perKind[sample.kind, default: 0] += 1
            if let notice = engine.update(sample) { log(notice) }
        case .availability(let kind, let status):
            if kind == .magnetometer { engine.magnetometerPresent = status.isAvailable }
            if case .samples = output {} else {
                logger.info("\(kind) \(status.isAvailable ? "available" : "unavailable"): \(status.reason)")
            }
        }
        switch output {
        case .summary:
            return
        case .samples(let writer):
            // Availability lines are printed but only samples count against --count.
            if case .sample = event { write(writer.line(for: event)) } else { write(writer.line(for: event), counted: false) }
        case .motion(let writer, let frame):
            guard case .sample(let sample) = event, sample.kind == .gyroscope else { return }
            do {
                if anchor == nil, engine.isReady { anchor = engine.anchor() }
                let motion = try engine.deviceMotion(in: frame, anchor: anchor)
                if unavailable != nil {
                    logger.info("device motion in \(frame) available")
                    unavailable = nil
                }
                write(writer.json ? SampleWriter.json(motion) : SampleWriter.text(motion))
            } catch {
                if unavailable != error { logger.notice("no device motion: \(error)") }
                unavailable = error
            }
        }
    }

    /// Prints one line; a counted one counts against `--count`.
    private func write(_ line: String, counted: Bool = true) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            finish("standard output closed")
            return
        }
        guard counted else { return }
        printed += 1
        if let count, printed >= count { finish("printed \(count) \(output.countedLines)") }
    }

    private func log(_ event: MotionEngine.Event) {
        switch event {
        case .calibrationAccuracyChanged(let from, let to):
            let hint = engine.status.calibrationNeeded ? "; move the device in a figure eight to calibrate the magnetometer" : ""
            logger.notice("magnetometer calibration accuracy \(from) → \(to)\(hint)")
        case .axisCheckConcluded(let verdict, let applied):
            switch verdict {
            case .consistent, .undetermined:
                logger.info("axis self-check: \(verdict)")
            case .inconsistent, .implausible:
                logger.warning("axis self-check: \(verdict)\(applied ? "; correction applied" : "; run with --apply-axis-correction to apply it")")
            }
        case .magneticDisturbance(let began):
            logger.info(began ? "magnetic disturbance: heading coasts on the gyroscope" : "magnetic disturbance over")
        }
    }

    private func summarize() {
        let rates = SensorKind.allCases.compactMap { kind in perKind[kind].map { "\(kind) \($0) Hz" } }
        logger.info("\(rates.isEmpty ? "no samples in the last second" : rates.joined(separator: ", "))")
        perKind = [:]
    }

    /// Stops the source (buffers disabled, triggers detached), saves the engine state, exits 0.
    private func finish(_ why: String) {
        logger.info("stopping: \(why)")
        source.stop()
        store?.save(engine.persistentState)
        exit(0)
    }
}
