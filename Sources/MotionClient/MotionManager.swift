// MotionManager: being written (issue 7).
public final class MotionManager: @unchecked Sendable {}
