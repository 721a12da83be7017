import MotionCore

/// Kinds of motion event, as UIKit's `UIEvent.EventSubtype` (motion subtypes).
public enum MotionEventSubtype: Sendable, Hashable {
    case motionShake
}

/// Receives shakes the way a UIKit responder does: `motionBegan` when a shake starts, then
/// `motionEnded` when it ends or `motionCancelled` when it was too long to count. `event` is
/// motiond's event (phase and timestamp). Each method has an empty default.
public protocol MotionResponder: AnyObject, Sendable {
    func motionBegan(_ motion: MotionEventSubtype, with event: MotionEvent?)
    func motionEnded(_ motion: MotionEventSubtype, with event: MotionEvent?)
    func motionCancelled(_ motion: MotionEventSubtype, with event: MotionEvent?)
}

extension MotionResponder {
    public func motionBegan(_ motion: MotionEventSubtype, with event: MotionEvent?) {}
    public func motionEnded(_ motion: MotionEventSubtype, with event: MotionEvent?) {}
    public func motionCancelled(_ motion: MotionEventSubtype, with event: MotionEvent?) {}
}
