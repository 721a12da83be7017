import MotionCore

/// Everything the rotation controller reacts to, in one ordered stream. Times are seconds on the
/// controller's clock: the event timestamps when replaying, ``ElapsedClock`` live.
enum RotationInput: Sendable {
    /// The device orientation reported at a time.
    case orientation(DeviceOrientation, at: Double)
    /// Time has passed: a debounce deadline, or the lock file's poll.
    case tick(at: Double)
    /// SIGUSR1: hold rotation, or release the hold.
    case toggleHold
    /// The replayed events are over: what is pending settles.
    case end
}
