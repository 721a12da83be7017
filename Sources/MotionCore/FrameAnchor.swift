/// Where the two arbitrary reference frames put their X axis: the device's yaw when a consumer
/// started device-motion updates (Core Motion fixes the arbitrary frames at start; starting
/// again re-establishes them). Take one from ``MotionEngine/anchor()`` at start and pass it
/// with every request.
public struct FrameAnchor: Sendable, Hashable, Codable {
    /// Yaw of the 6D attitude at start, radians (``AttitudeReferenceFrame/xArbitraryZVertical``).
    public var arbitraryYaw: Double
    /// Yaw of the 9D attitude at start, radians; nil when no heading was known yet, in which
    /// case the engine's own anchor (set when its heading was first known) is used.
    public var correctedYaw: Double?

    public init(arbitraryYaw: Double, correctedYaw: Double?) {
        self.arbitraryYaw = arbitraryYaw
        self.correctedYaw = correctedYaw
    }
}
