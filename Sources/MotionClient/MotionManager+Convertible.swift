import Foundation
import MotionCore
import MotionProtocol

/// A convertible's hinge angle and posture, from motiond's `hinge` and `posture` streams (the
/// display and base accelerometers: docs/ENGINE.md, "Hinge angle", and docs/EVENTS.md,
/// "Posture"). Core Motion has no counterpart (Android has `HINGE_ANGLE`); they follow the
/// manager's observation style (``observeOrientation(on:_:)``). Nothing comes on a machine
/// without a base accelerometer (``isHingeAvailable``).
extension MotionManager {
    /// Calls `handler` on `queue` with the hinge angle every `interval` seconds, until the
    /// observation is cancelled.
    public func observeHinge(interval: TimeInterval = 0.1, on queue: OperationQueue,
                             _ handler: @escaping @Sendable (HingeAngle) -> Void) -> MotionObservation {
        observe(.hinge, interval: interval) { result in
            guard case .success(.hinge(let angle)) = result else { return }
            queue.addOperation { handler(angle) }
        }
    }

    /// Calls `handler` on `queue` with the posture now (once motiond knows it) and on every
    /// change, until the observation is cancelled.
    public func observePosture(on queue: OperationQueue, _ handler: @escaping @Sendable (Posture) -> Void) -> MotionObservation {
        observe(.posture) { result in
            guard case .success(.event(.posture(let posture, _))) = result else { return }
            queue.addOperation { handler(posture) }
        }
    }

    /// The hinge angle every `interval` seconds.
    public func hingeAngles(interval: TimeInterval = 0.1) -> AsyncStream<HingeAngle> {
        observedSequence { continuation in observeHinge(interval: interval, on: Self.sequenceQueue) { continuation.yield($0) } }
    }

    /// Posture changes, starting with the current posture once known.
    public func postures() -> AsyncStream<Posture> {
        observedSequence { continuation in observePosture(on: Self.sequenceQueue) { continuation.yield($0) } }
    }
}
