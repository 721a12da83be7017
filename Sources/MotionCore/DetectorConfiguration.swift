/// Every event detector's parameters in one place: what the daemon's configuration file exposes
/// and `motionctl analyze` tunes. Defaults are what the daemon ships (documented on each
/// detector's `Parameters` and in docs/EVENTS.md).
public struct DetectorConfiguration: Sendable, Hashable, Codable {
    public var orientation = OrientationDetector.Parameters()
    public var shake = ShakeDetector.Parameters()
    public var slap = SlapDetector.Parameters()
    public var tap = TapDetector.Parameters()
    /// User acceleration above this (G) counts as "accelerating hard": no orientation decision.
    public var hardAcceleration = 0.5
    /// Without a gyroscope: |a| off 1 G by more than this (G) counts as accelerating.
    public var accelerationTolerance = 0.4

    public init() {}
}
