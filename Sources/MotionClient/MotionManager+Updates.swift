import Foundation
import MotionCore
import MotionProtocol

/// Handlers as Core Motion's: a value, or nil and why (``MotionClientError``).
public typealias AccelerometerHandler = @Sendable (AccelerometerData?, (any Error)?) -> Void
public typealias GyroHandler = @Sendable (GyroData?, (any Error)?) -> Void
public typealias MagnetometerHandler = @Sendable (MagnetometerData?, (any Error)?) -> Void
public typealias DeviceMotionHandler = @Sendable (DeviceMotion?, (any Error)?) -> Void
public typealias HeadingHandler = @Sendable (Heading?, (any Error)?) -> Void

/// Push and pull of each stream, named and behaving as in `CMMotionManager`: `start…Updates()`
/// then read the latest value (nil until the first one arrives), or `start…Updates(to:withHandler:)`
/// to have each value handed to a handler on that queue; `stop…Updates()` is idempotent; a
/// second start replaces the first. Pull and push of one stream share the one update interval
/// and maximum report latency (`…MaximumReportLatency`, beyond Core Motion: values may arrive in
/// batches, each handed to the handler on its own, in order). When motiond lacks a sensor the
/// stream needs as the updates start, the handler gets ``MotionClientError/sensorUnavailable(_:_:)``
/// and the updates end (`is…Active` reads false; start again once `is…Available`); a sensor
/// unplugged while updates run gets the handler the same error, and its values resume when it is back.
extension MotionManager {
    // MARK: Accelerometer

    public func startAccelerometerUpdates() { start(.accelerometer, on: nil, Self.accelerometerData, handler: nil) }
    public func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping AccelerometerHandler) {
        start(.accelerometer, on: queue, Self.accelerometerData, handler: handler)
    }
    public func stopAccelerometerUpdates() { stop(.accelerometer) }
    public var isAccelerometerActive: Bool { isActive(.accelerometer) }
    /// The latest accelerometer reading (nil before the first, or when updates are off).
    public var accelerometerData: AccelerometerData? { latest(.accelerometer, Self.accelerometerData) }

    // MARK: Gyroscope

    public func startGyroUpdates() { start(.gyro, on: nil, Self.gyroData, handler: nil) }
    public func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping GyroHandler) {
        start(.gyro, on: queue, Self.gyroData, handler: handler)
    }
    public func stopGyroUpdates() { stop(.gyro) }
    public var isGyroActive: Bool { isActive(.gyro) }
    /// The latest raw gyroscope reading (bias not removed; ``deviceMotion`` has it removed).
    public var gyroData: GyroData? { latest(.gyro, Self.gyroData) }

    // MARK: Magnetometer

    public func startMagnetometerUpdates() { start(.magnetometer, on: nil, Self.magnetometerData, handler: nil) }
    public func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping MagnetometerHandler) {
        start(.magnetometer, on: queue, Self.magnetometerData, handler: handler)
    }
    public func stopMagnetometerUpdates() { stop(.magnetometer) }
    public var isMagnetometerActive: Bool { isActive(.magnetometer) }
    /// The latest raw magnetometer reading (uncalibrated; ``deviceMotion`` has it calibrated).
    public var magnetometerData: MagnetometerData? { latest(.magnetometer, Self.magnetometerData) }

    // MARK: Device motion

    /// The frame of the device-motion updates running or last started (default
    /// `xArbitraryZVertical`), like `CMMotionManager.attitudeReferenceFrame`.
    public var attitudeReferenceFrame: AttitudeReferenceFrame { sync { deviceMotionFrame } }

    public func startDeviceMotionUpdates() { startDeviceMotionUpdates(using: .xArbitraryZVertical) }
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame) {
        sync { deviceMotionFrame = frame }
        start(.deviceMotion, on: nil, Self.deviceMotionData, handler: nil)
    }
    public func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping DeviceMotionHandler) {
        startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue, withHandler: handler)
    }
    /// A frame the daemon cannot serve gets the handler a ``MotionClientError/frameUnavailable(_:)``.
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame, to queue: OperationQueue,
                                         withHandler handler: @escaping DeviceMotionHandler) {
        sync { deviceMotionFrame = frame }
        start(.deviceMotion, on: queue, Self.deviceMotionData, handler: handler)
    }
    public func stopDeviceMotionUpdates() { stop(.deviceMotion) }
    public var isDeviceMotionActive: Bool { isActive(.deviceMotion) }
    /// The latest device motion: attitude, bias-free rotation rate, gravity, user acceleration,
    /// calibrated magnetic field, heading.
    public var deviceMotion: DeviceMotion? { latest(.deviceMotion, Self.deviceMotionData) }

    // MARK: Heading (as CLLocationManager's)

    /// Degrees the heading must change before the next update (default 1; 0: every update).
    /// Takes effect at the next `startHeadingUpdates`.
    public var headingFilter: Double {
        get { sync { headingOptions.filter } }
        set { sync { headingOptions.filter = max(newValue, 0) } }
    }
    /// Which edge of the device counts as forward (default portrait: the top edge). Takes effect
    /// at the next `startHeadingUpdates`.
    public var headingOrientation: HeadingOrientation {
        get { sync { headingOptions.orientation } }
        set { sync { headingOptions.orientation = newValue } }
    }
    public func startHeadingUpdates() { start(.heading, on: nil, Self.headingData, handler: nil) }
    public func startHeadingUpdates(to queue: OperationQueue, withHandler handler: @escaping HeadingHandler) {
        start(.heading, on: queue, Self.headingData, handler: handler)
    }
    public func stopHeadingUpdates() { stop(.heading) }
    public var isHeadingActive: Bool { isActive(.heading) }
    /// The latest heading (magnetic, and true when motiond knows the declination).
    public var heading: Heading? { latest(.heading, Self.headingData) }

    // MARK: - Shared

    /// The Core Motion-style updates of a stream are its consumer 0.
    static let ownConsumer = 0

    private func start<Value: Sendable>(_ stream: StreamName, on queue: OperationQueue?, _ convert: @escaping @Sendable (ServerMessage) -> Value?,
                                        handler: (@Sendable (Value?, (any Error)?) -> Void)?) {
        sync {
            latest[stream] = nil
            _ = addConsumer(stream, interval: stream.isSampleStream ? intervals[stream] ?? Self.defaultInterval : nil,
                            latency: latencies[stream] ?? 0, id: Self.ownConsumer) { result in
                guard let queue, let handler else { return }
                switch result {
                case .success(let message):
                    guard let value = convert(message) else { return }
                    queue.addOperation { handler(value, nil) }
                case .failure(let error):
                    queue.addOperation { handler(nil, error) }
                }
            }
        }
    }

    private func stop(_ stream: StreamName) {
        sync {
            removeConsumer(stream, id: Self.ownConsumer)
            latest[stream] = nil
        }
    }

    private func isActive(_ stream: StreamName) -> Bool {
        sync { consumers[stream]?[Self.ownConsumer] != nil }
    }

    private func latest<Value>(_ stream: StreamName, _ convert: (ServerMessage) -> Value?) -> Value? {
        sync { consumers[stream]?[Self.ownConsumer] != nil ? latest[stream].flatMap(convert) : nil }
    }

    static func accelerometerData(_ message: ServerMessage) -> AccelerometerData? {
        guard case .sample(let sample) = message, sample.kind == .accelerometer else { return nil }
        return AccelerometerData(timestamp: sample.timestamp, acceleration: Acceleration(sample.vector))
    }

    static func gyroData(_ message: ServerMessage) -> GyroData? {
        guard case .sample(let sample) = message, sample.kind == .gyroscope else { return nil }
        return GyroData(timestamp: sample.timestamp, rotationRate: RotationRate(sample.vector))
    }

    static func magnetometerData(_ message: ServerMessage) -> MagnetometerData? {
        guard case .sample(let sample) = message, sample.kind == .magnetometer else { return nil }
        return MagnetometerData(timestamp: sample.timestamp, magneticField: MagneticField(sample.vector))
    }

    static func deviceMotionData(_ message: ServerMessage) -> DeviceMotion? {
        guard case .deviceMotion(let motion) = message else { return nil }
        return motion
    }

    static func headingData(_ message: ServerMessage) -> Heading? {
        guard case .heading(let heading, _, _) = message else { return nil }
        return heading
    }
}
