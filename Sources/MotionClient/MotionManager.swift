// MotionManager: being written (issue 7). The signatures below are the ones motiond-rotate uses.
import MotionCore

public final class MotionManager: @unchecked Sendable {
    public static let shared = MotionManager()

    public init(socketPath: String? = nil) {}

    /// Device orientation changes, starting with the current orientation once known.
    public func deviceOrientations() -> AsyncStream<DeviceOrientation> {
        AsyncStream { $0.finish() }
    }
}
