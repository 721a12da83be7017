import Foundation
import MotionCore
import MotionProtocol

/// Every stream as an asynchronous sequence, for Swift concurrency. Each sequence is its own
/// consumer with its own interval; ending the iteration (or cancelling its task) ends it.
/// Sample sequences throw only errors waiting cannot cure (access denied, frame unavailable, and
/// ``MotionClientError/sensorUnavailable(_:_:)`` when motiond lacks the sensor as the sequence
/// starts): while motiond is away, or a sensor is unplugged, they simply pause, and resume when
/// it is back.
///
/// `maximumReportLatency` (beyond Core Motion, as Android's maximum report latency): seconds a
/// value may be late; above 0 motiond sends values in batches, and the sequence still yields
/// every value, in order (see ``accelerometerMaximumReportLatency``).
extension MotionManager {
    public func accelerometerUpdates(interval: TimeInterval = defaultInterval,
                                     maximumReportLatency: TimeInterval = 0) -> AsyncThrowingStream<AccelerometerData, any Error> {
        updates(.accelerometer, interval: interval, latency: maximumReportLatency, Self.accelerometerData)
    }

    public func gyroUpdates(interval: TimeInterval = defaultInterval,
                            maximumReportLatency: TimeInterval = 0) -> AsyncThrowingStream<GyroData, any Error> {
        updates(.gyro, interval: interval, latency: maximumReportLatency, Self.gyroData)
    }

    public func magnetometerUpdates(interval: TimeInterval = defaultInterval,
                                    maximumReportLatency: TimeInterval = 0) -> AsyncThrowingStream<MagnetometerData, any Error> {
        updates(.magnetometer, interval: interval, latency: maximumReportLatency, Self.magnetometerData)
    }

    /// Device motion in `frame`; the manager has one device-motion frame at a time, so this
    /// also sets ``attitudeReferenceFrame`` for the updates running.
    public func deviceMotionUpdates(using frame: AttitudeReferenceFrame = .xArbitraryZVertical, interval: TimeInterval = defaultInterval,
                                    maximumReportLatency: TimeInterval = 0) -> AsyncThrowingStream<DeviceMotion, any Error> {
        sync { deviceMotionFrame = frame }
        return updates(.deviceMotion, interval: interval, latency: maximumReportLatency, Self.deviceMotionData)
    }

    /// Headings with the manager's ``headingFilter`` and ``headingOrientation``.
    public func headingUpdates(maximumReportLatency: TimeInterval = 0) -> AsyncThrowingStream<Heading, any Error> {
        updates(.heading, interval: nil, latency: maximumReportLatency, Self.headingData)
    }

    /// Device orientation changes, starting with the current orientation once known.
    public func deviceOrientations() -> AsyncStream<DeviceOrientation> {
        observedSequence { continuation in observeOrientation(on: Self.sequenceQueue) { continuation.yield($0) } }
    }

    /// Shake phases (began, ended, cancelled) as motiond's events.
    public func shakes() -> AsyncStream<MotionEvent> {
        events(.shake)
    }

    /// Gestures (face up/down, slaps, taps, rest/motion) as motiond's events.
    public func gestures() -> AsyncStream<MotionEvent> {
        events(.gesture)
    }

    /// Hands values to sequences in order, off the manager's queue.
    static let sequenceQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()

    /// A sequence fed by an observation (on ``sequenceQueue``), which ends with it.
    func observedSequence<Value: Sendable>(_ observing: (AsyncStream<Value>.Continuation) -> MotionObservation) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let observation = observing(continuation)
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    private func events(_ stream: StreamName) -> AsyncStream<MotionEvent> {
        let (sequence, continuation) = AsyncStream.makeStream(of: MotionEvent.self)
        let id = sync {
            addConsumer(stream, interval: nil) { result in
                if case .success(.event(let event)) = result { continuation.yield(event) }
            }
        }
        continuation.onTermination = { [weak self] _ in self?.removeConsumerLater(stream, id: id) }
        return sequence
    }

    private func updates<Value: Sendable>(_ stream: StreamName, interval: TimeInterval?, latency: TimeInterval,
                                          _ convert: @escaping @Sendable (ServerMessage) -> Value?) -> AsyncThrowingStream<Value, any Error> {
        let (sequence, continuation) = AsyncThrowingStream.makeStream(of: Value.self, throwing: (any Error).self)
        let id = sync {
            addConsumer(stream, interval: interval.map { max($0, Wire.minimumInterval) }, latency: Self.clampedLatency(latency),
                        ended: { continuation.finish(throwing: $0) }) { result in
                switch result {
                case .success(let message):
                    if let value = convert(message) { continuation.yield(value) }
                case .failure(let error):
                    if error.isPermanent { continuation.finish(throwing: error) }
                }
            }
        }
        continuation.onTermination = { [weak self] _ in self?.removeConsumerLater(stream, id: id) }
        return sequence
    }
}
