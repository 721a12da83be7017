import MotionCore
import MotionIIO
import MotionProtocol

/// What the pipeline answers from what it holds at one moment: the hello, the `status` reply,
/// the latest value of a stream (`get`), what a new subscriber of a state stream learns at once,
/// and why a value is missing. A view of the pipeline's state built on its queue for one
/// request; pure.
struct PipelineReplies {
    let engine: MotionEngine
    let publisher: Publisher
    let sensors: SensorStates
    /// What the source is reading now.
    let request: SourceRequest
    /// The latest sample of each sensor.
    let latest: [SensorKind: Sample]

    func hello(_ grant: AccessGrant) -> Hello {
        Hello(daemon: MotionVersion.daemon, sensors: sensors.all(reading: request), frames: engine.availableFrames, access: grant)
    }

    /// `status`: `uptime` in seconds, `clients` connected.
    func status(source: String, uptime: Double, clients: Int) -> DaemonStatus {
        DaemonStatus(source: source, uptime: uptime, sensors: sensors.all(reading: request), frames: engine.availableFrames,
                     engine: EngineFlags(engine.status), clients: clients, subscriptions: publisher.counts,
                     heapInUse: Heap.bytesInUse)
    }

    /// Whether every sensor `subscription` needs is available now.
    func isAvailable(_ subscription: Subscription) -> Bool {
        subscription.kinds.allSatisfy { sensors.state($0, reading: request).available }
    }

    /// What a new subscriber of a state stream learns at once: every sensor's availability,
    /// the calibration, the orientation, the tilt, a convertible's posture and near or far (when
    /// known).
    func currentState(of stream: StreamName, for subscription: Subscription) -> [ServerMessage] {
        switch stream {
        case .availability:
            return sensors.known.map { .availability($0, sensors.state($0, reading: request)) }
        case .calibration:
            let status = engine.status
            return [.calibration(accuracy: status.calibrationAccuracy, calibrationNeeded: status.calibrationNeeded)]
        case .orientation:
            let orientation = publisher.orientation(for: subscription.detectors)
            guard orientation != .unknown, let t = publisher.detectorTime else { return [] }
            return [.event(.orientation(orientation, timestamp: t))]
        case .tilt:
            guard let tilt = publisher.tilt(for: subscription.detectors), let t = publisher.detectorTime else { return [] }
            return [.event(.tilt(tilt, timestamp: t))]
        case .posture:
            let posture = publisher.posture(for: subscription.detectors)
            guard posture != .unknown, let t = publisher.detectorTime else { return [] }
            return [.event(.posture(posture, timestamp: t))]
        case .proximity:
            return publisher.proximity.state.map { [.proximity($0)] } ?? []
        default:
            return []
        }
    }

    /// `get`: the latest value of a stream, in its push shape. `frame` and `orientation` default
    /// to those of the recipient's own subscription to the stream, if any.
    func latestValue(_ stream: StreamName, frame: AttitudeReferenceFrame?, orientation: HeadingOrientation?,
                     for recipient: Recipient) throws(ProtocolError) -> ServerMessage {
        guard stream.isPullable else {
            throw ProtocolError(.notPullable, stream == .availability
                ? "availability has no single latest value: use status, or subscribe to availability"
                : "\(stream) is an event stream: subscribe to it")
        }
        if let kind = stream.sensorKind {
            guard let sample = latest[kind] else { throw noSample(stream, needs: [kind]) }
            return .sample(sample)
        }
        switch stream {
        case .deviceMotion:
            let subscription = publisher.subscription(.deviceMotion, recipient: recipient)
            let frame = frame ?? subscription?.frame ?? .xArbitraryZVertical
            let anchor = subscription?.frame == frame ? subscription?.anchor : nil
            do {
                return .deviceMotion(try engine.deviceMotion(in: frame, anchor: anchor))
            } catch {
                throw unavailable(error, stream, needs: SensorDemand.kinds(for: .deviceMotion, frame: frame))
            }
        case .heading:
            let orientation = orientation ?? publisher.subscription(.heading, recipient: recipient)?.headingOrientation ?? .portrait
            do {
                let heading = try engine.heading(orientation: orientation)
                return .heading(heading, orientation: orientation, topEdge: try engine.heading(orientation: .portrait).magneticHeading)
            } catch {
                throw unavailable(error, stream, needs: SensorDemand.kinds(for: .heading, frame: nil))
            }
        case .orientation:
            guard let t = publisher.detectorTime else { throw noSample(stream, needs: [.accelerometer]) }
            return .event(.orientation(publisher.orientation(for: publisher.defaultDetectors), timestamp: t))
        case .tilt:
            guard let t = publisher.detectorTime, let tilt = publisher.tilt(for: publisher.defaultDetectors) else {
                throw noSample(stream, needs: [.accelerometer])
            }
            return .event(.tilt(tilt, timestamp: t))
        case .proximity:
            guard let state = publisher.proximity.state else { throw noSample(stream, needs: [.proximity]) }
            return .proximity(state)
        case .hinge:
            guard let angle = engine.hingeAngle else { throw noSample(stream, needs: [.accelerometer, .baseAccelerometer]) }
            return .hinge(angle)
        case .posture:
            let posture = publisher.posture(for: publisher.defaultDetectors)
            guard posture != .unknown, let t = publisher.detectorTime else { throw noSample(stream, needs: [.accelerometer, .baseAccelerometer]) }
            return .event(.posture(posture, timestamp: t))
        default:
            let status = engine.status
            return .calibration(accuracy: status.calibrationAccuracy, calibrationNeeded: status.calibrationNeeded)
        }
    }

    /// `get`'s `age` of `value`: seconds from its timestamp to `now` on the boot clock the
    /// sources stamp with, to the millisecond, never negative (nil without a timestamp). A value
    /// kept after its sensors stopped shows how old it is.
    static func age(of value: ServerMessage, now: Double) -> Double? {
        value.timestamp.map { max(0, ((now - $0) * 1000).rounded() / 1000) }
    }

    private func unavailable(_ error: DeviceMotionUnavailable, _ stream: StreamName, needs: Set<SensorKind>) -> ProtocolError {
        if case .frameUnavailable(let frame, let reason) = error { return ProtocolError(.frameUnavailable, "\(frame): \(reason)") }
        return noSample(stream, needs: needs)
    }

    /// Why there is no value yet: the sensors it needs are not running (nobody subscribes), or
    /// they are starting.
    private func noSample(_ stream: StreamName, needs: Set<SensorKind>) -> ProtocolError {
        let idle = needs.filter { request.periods[$0] == nil }.map(\.rawValue).sorted()
        let why = idle.isEmpty ? "the sensors are starting or the fusion is warming up"
            : "\(idle.joined(separator: " and ")) not running: subscribe to \(stream) to start it"
        return ProtocolError(.noSample, "no \(stream) value yet: \(why)")
    }
}
