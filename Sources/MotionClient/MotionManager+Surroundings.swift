import Foundation
import MotionCore
import MotionProtocol

/// What a desktop needs beside the orientation: how far the screen faces up or down, the
/// ambient light (auto-brightness) and whether something is near the proximity sensor
/// (blanking during a call) — iio-sensor-proxy's `AccelerometerTilt`, `LightLevel` and
/// `ProximityNear`, from motiond's `tilt`, `light` and `proximity` streams. Core Motion has no
/// counterpart; they follow the manager's observation style (``observeOrientation(on:_:)``).
extension MotionManager {
    /// Calls `handler` on `queue` with the screen's tilt now (once motiond knows it) and on
    /// every change, until the observation is cancelled.
    public func observeTilt(on queue: OperationQueue, _ handler: @escaping @Sendable (DeviceTilt) -> Void) -> MotionObservation {
        observe(.tilt) { result in
            guard case .success(.event(.tilt(let tilt, _))) = result else { return }
            queue.addOperation { handler(tilt) }
        }
    }

    /// Calls `handler` on `queue` with the ambient light in lux (and its time, seconds since
    /// boot) every `interval` seconds (at least 0.1: light sensors are read at most 10 times a
    /// second), until the observation is cancelled. Nothing comes on a machine without a light
    /// sensor (``isLightAvailable``).
    public func observeLight(interval: TimeInterval = 1, on queue: OperationQueue,
                             _ handler: @escaping @Sendable (_ lux: Double, _ timestamp: TimeInterval) -> Void) -> MotionObservation {
        observe(.light, interval: max(interval, StreamName.light.minimumInterval)) { result in
            guard case .success(.sample(let sample)) = result, sample.kind == .light else { return }
            queue.addOperation { handler(sample.vector.x, sample.timestamp) }
        }
    }

    /// Calls `handler` on `queue` with whether something is near the proximity sensor, now and
    /// on every change, until the observation is cancelled.
    public func observeProximity(on queue: OperationQueue, _ handler: @escaping @Sendable (Proximity) -> Void) -> MotionObservation {
        observe(.proximity) { result in
            guard case .success(.proximity(let proximity)) = result else { return }
            queue.addOperation { handler(proximity) }
        }
    }

    /// Tilt changes, starting with the current tilt once known.
    public func tilts() -> AsyncStream<DeviceTilt> {
        observedSequence { continuation in observeTilt(on: Self.sequenceQueue) { continuation.yield($0) } }
    }

    /// The ambient light in lux every `interval` seconds.
    public func lightLevels(interval: TimeInterval = 1) -> AsyncStream<Double> {
        observedSequence { continuation in observeLight(interval: interval, on: Self.sequenceQueue) { lux, _ in continuation.yield(lux) } }
    }

    /// Proximity changes, starting with the current state once known.
    public func proximityStates() -> AsyncStream<Proximity> {
        observedSequence { continuation in observeProximity(on: Self.sequenceQueue) { continuation.yield($0) } }
    }
}
