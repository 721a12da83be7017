import Dispatch
import Foundation
import Logging
import MotionCore
import MotionIIO

/// Runs a source until a signal, `--count` or `--duration` ends it, on the one serial
/// pipeline queue, printing samples or a once-per-second rate summary.
final class Runner: @unchecked Sendable {
    private let source: MotionSource
    private let request: SourceRequest
    private let writer: SampleWriter?
    private let count: Int?
    private let duration: Double?
    private let logger: Logger
    private let pipeline = DispatchQueue(label: "motiond.pipeline")
    // Confined to `pipeline`.
    private var printed = 0
    private var perKind: [SensorKind: Int] = [:]
    private var signals: [DispatchSourceSignal] = []

    init(source: MotionSource, request: SourceRequest, writer: SampleWriter?, count: Int?, duration: Double?, logger: Logger) {
        self.source = source
        self.request = request
        self.writer = writer
        self.count = count
        self.duration = duration
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
            signals.append(source)
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
        if writer == nil {
            let timer = DispatchSource.makeTimerSource(queue: pipeline)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [unowned self] in summarize() }
            timer.resume()
        }
        dispatchMain()
    }

    private func handle(_ event: SourceEvent) {
        switch event {
        case .sample(let sample):
            perKind[sample.kind, default: 0] += 1
        case .availability(let kind, let status) where writer == nil:
            logger.info("\(kind) \(status.isAvailable ? "available" : "unavailable"): \(status.reason)")
        case .availability:
            break // printed below
        }
        guard let writer else { return }
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((writer.line(for: event) + "\n").utf8))
        } catch {
            finish("standard output closed")
            return
        }
        if case .sample = event {
            printed += 1
            if let count, printed >= count { finish("printed \(count) samples") }
        }
    }

    private func summarize() {
        let rates = SensorKind.allCases.compactMap { kind in perKind[kind].map { "\(kind) \($0) Hz" } }
        logger.info("\(rates.isEmpty ? "no samples in the last second" : rates.joined(separator: ", "))")
        perKind = [:]
    }

    /// Stops the source (buffers disabled, triggers detached) and exits 0.
    private func finish(_ why: String) {
        logger.info("stopping: \(why)")
        source.stop()
        exit(0)
    }
}
