/// A registration that lasts until cancelled (an orientation or calibration observer, a motion
/// responder). Cancelling twice is harmless; dropping it does not cancel.
public final class MotionObservation: Sendable {
    private let cancellation: @Sendable () -> Void

    init(_ cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = cancellation
    }

    public func cancel() { cancellation() }
}
