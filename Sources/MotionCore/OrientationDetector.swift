import Glibc

/// Decides ``DeviceOrientation`` from gravity, with dead zones, hysteresis and a settle time, and
/// reports only changes. Pure: time comes from the timestamps passed in (seconds).
///
/// Feed it the fused gravity (fast and immune to linear acceleration) when a gyroscope exists,
/// or gravity from ``AccelerationGravity`` otherwise. Only gravity's direction counts (any
/// length: a device reading 26 G at rest is decided as one reading 1 G). The rule, with the
/// default ``Parameters``:
/// - Flat: the screen normal within 25° of vertical (|g.z| ≥ cos 25°) proposes faceUp/faceDown;
///   once flat, the device stays flat until the normal is more than 35° from vertical.
/// - Upright: iio-sensor-proxy's rule. An edge is up when gravity's angle along the screen
///   axis through it (asin(g.x) for the side edges, asin(g.y) for top and bottom, in whole
///   degrees) is beyond 35° while the other axis's is not: x beyond proposes landscapeRight
///   (g.x > 0, left edge up) or landscapeLeft, y beyond portraitUpsideDown (g.y > 0) or portrait.
///   Where both axes are beyond (near a diagonal) or neither is (a tilted-back device), the
///   upright state last reported holds — the current one, or from a flat state the one before it
///   (nothing when there was none: `unknown` and a flat state stay).
/// - No decision while the device accelerates hard (the caller's flag) or turns fast.
/// - A proposal becomes the orientation after it held for ``Parameters/settleTime`` — or at
///   once when the caller says the accelerometer has lain still (within
///   ``Parameters/stillTolerance``) for ``Parameters/stillTime``: a device set down in a new
///   position is not moving, there is nothing to wait out.
public struct OrientationDetector: Sendable {
    /// Thresholds (degrees, seconds, rad/s). Defaults grounded in iio-sensor-proxy (the 35° axis
    /// threshold and its keep-the-previous zones), Android's WindowOrientationListener (settle)
    /// and UIKit's flat states.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Flat when the screen normal is within this angle of vertical…
        public var flatEnter = 25.0
        /// …and still flat until it is beyond this one.
        public var flatExit = 35.0
        /// An edge is up when gravity's angle along its screen axis is beyond this (whole
        /// degrees) and the other axis's is not (iio-sensor-proxy's 35°).
        public var uprightThreshold = 35.0
        /// How long a proposal must hold before it is reported.
        public var settleTime = 0.1
        /// A reading still this long (seconds, at least three readings) counts as settled: its
        /// mean is gravity, reported without the settle wait. At or above `settleTime` it
        /// changes nothing.
        public var stillTime = 0.04
        /// How far (G) readings may lie from the first of a still stretch.
        public var stillTolerance = 0.05
        /// No decision while the rotation rate exceeds this (rad/s): the device is being turned.
        public var maximumRotationRate = 1.5

        public init() {}
    }

    public var parameters: Parameters
    /// The orientation last reported.
    public private(set) var orientation = DeviceOrientation.unknown
    /// The upright state last reported: what holds where the upright rule keeps the previous
    /// value after a flat state.
    private var lastUpright: DeviceOrientation?
    private var candidate: DeviceOrientation?
    private var candidateSince = 0.0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds gravity (G, device frame, any length) at `time`; `accelerating` and `rotationRate`
    /// say whether the device is moving too hard to judge, `still` that the accelerometer has
    /// been still for ``Parameters/stillTime`` (no settle wait then). Returns the new
    /// orientation when it changes, nil otherwise.
    public mutating func update(gravity: Vector3, at time: Double, accelerating: Bool = false,
                                rotationRate: Double = 0, still: Bool = false) -> DeviceOrientation? {
        guard gravity.isFinite, time.isFinite, gravity.norm > 0.1, !accelerating,
              rotationRate <= parameters.maximumRotationRate else {
            candidate = nil
            return nil
        }
        let proposal = propose(gravity / gravity.norm)
        guard proposal != orientation else {
            candidate = nil
            return nil
        }
        if candidate != proposal {
            candidate = proposal
            candidateSince = time
        }
        guard still || time - candidateSince >= parameters.settleTime else { return nil }
        orientation = proposal
        if proposal.isUpright { lastUpright = proposal }
        candidate = nil
        return proposal
    }

    /// Forgets the orientation (e.g. the sensor was lost): back to unknown.
    public mutating func reset() {
        orientation = .unknown
        lastUpright = nil
        candidate = nil
    }

    /// The state `g` (unit) argues for, given the current one (see the type's rule).
    private func propose(_ g: Vector3) -> DeviceOrientation {
        let fromVertical = acos(min(1, abs(g.z))) * Self.degrees // screen normal's angle from vertical
        let flat: DeviceOrientation = g.z < 0 ? .faceUp : .faceDown
        let isFlat = orientation == .faceUp || orientation == .faceDown
        if fromVertical <= parameters.flatEnter || (isFlat && fromVertical <= parameters.flatExit) { return flat }
        if let edge = Self.edgeUp(g, threshold: parameters.uprightThreshold) { return edge }
        return isFlat ? lastUpright ?? flat : orientation
    }

    /// The upright state whose edge is up by iio-sensor-proxy's rule, nil where it keeps its
    /// previous value (both in-plane axes beyond `threshold`, or neither). `g` is unit.
    static func edgeUp(_ g: Vector3, threshold: Double) -> DeviceOrientation? {
        // Whole degrees, as iio-sensor-proxy rounds them: 35.4° is not beyond 35°.
        let x = (asin(max(-1, min(1, g.x))) * degrees).rounded()
        let y = (asin(max(-1, min(1, g.y))) * degrees).rounded()
        switch (abs(x) > threshold, abs(y) > threshold) {
        case (true, false): return x > 0 ? .landscapeRight : .landscapeLeft
        case (false, true): return y > 0 ? .portraitUpsideDown : .portrait
        default: return nil
        }
    }

    private static let degrees = 180 / Double.pi
}
