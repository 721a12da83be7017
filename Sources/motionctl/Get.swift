import ArgumentParser
import MotionCore
import MotionProtocol
import MotionToolSupport

/// `motionctl get STREAM`: the latest value of one stream (a `get` pull), starting the sensors
/// it needs when nothing has read them yet.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the latest value of a stream of a running motiond.",
        discussion: """
        Streams: \(StreamName.allCases.filter(\.isPullable).map(\.rawValue).joined(separator: ", ")) \
        (shake and gesture are events: watch them with motionctl monitor). A pull does not start \
        sensors, so when the daemon has no value yet (nobody has subscribed to the stream's \
        sensors since it started), get subscribes to the stream, waits for its first value (at \
        most --timeout seconds) and pulls again: the value printed is then fresh. Otherwise the \
        value is the latest the daemon has, which may be older if its sensor has stopped since: \
        its timestamp (seconds since boot) tells. \(DaemonOptions.exitStatuses)
        """)

    @Argument(help: "The stream.", completion: .list(StreamName.allCases.filter(\.isPullable).map(\.rawValue)))
    var stream: String

    @Option(help: "Reference frame of device motion (default: xArbitraryZVertical).", completion: .list(AttitudeReferenceFrame.named.map(\.name)))
    var frame: String?

    @Option(help: "Seconds to wait for a first value when the daemon has none yet.")
    var timeout = 5.0

    @Flag(help: "The value as one JSON line, in the shape the daemon pushes it.")
    var json = false

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        guard let name = StreamName(rawValue: stream) else {
            throw ValidationError("unknown stream \(stream): expected one of \(StreamName.allCases.filter(\.isPullable).map(\.rawValue).joined(separator: ", "))")
        }
        guard name.isPullable else {
            throw ValidationError("\(stream) has no latest value to get: watch it with motionctl monitor \(stream)")
        }
        if let frame {
            guard name == .deviceMotion else { throw ValidationError("--frame applies to deviceMotion only") }
            guard AttitudeReferenceFrame(name: frame) != nil else {
                throw ValidationError("--frame \(frame): expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
            }
        }
        try TimeOption.check(timeout, "--timeout", allowZero: true)
    }

    func run() throws {
        let stream = StreamName(rawValue: self.stream)!
        let frame = self.frame.flatMap(AttitudeReferenceFrame.init(name:))
        try daemon.run { connection in
            let message = try Self.latest(stream, frame: frame, from: connection, timeout: timeout)
            Console.line(json ? message.line : message.text ?? message.line)
        }
    }

    /// The stream's latest value; on `noSample`, subscribes and pulls again once the first
    /// value has arrived.
    private static func latest(_ stream: StreamName, frame: AttitudeReferenceFrame?, from connection: DaemonConnection,
                               timeout: Double) throws -> ServerMessage {
        let pull = ClientRequest.get(id: 1, stream: stream, frame: frame, orientation: nil)
        let first = try connection.request(pull)
        guard case .failure(let error) = first, error.code == .noSample else { return try value(DaemonConnection.reply(first)) }
        let deadline = ContinuousClock.now + .seconds(timeout)
        guard try connection.subscribe(.init(id: 2, stream: stream, frame: frame)).available else {
            Console.error("\(stream): the sensors it needs are not available (motionctl status says why)")
            throw ExitCode.failure
        }
        while let message = try connection.next(before: deadline) {
            if case .goodbye = message { throw DaemonConnection.Failure.closed }
            if message.stream == stream { return try value(connection.call(pull)) }
        }
        Console.error("no \(stream) value within \(DecimalText.shortest(timeout)) s (\(error.message))")
        throw ExitCode.failure
    }

    private static func value(_ reply: ServerMessage.Reply) throws(DaemonConnection.Failure) -> ServerMessage {
        guard case .value(let message, _) = reply else {
            throw .protocolError(ProtocolError(.invalidValue, "the get reply carries no sample"))
        }
        return message
    }
}
