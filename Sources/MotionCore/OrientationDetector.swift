import Glibc

/// Decides ``DeviceOrientation`` from gravity, with dead zones, hysteresis and a settle time, and
/// reports only changes. Pure: time comes from the timestamps passed in (seconds).
///
/// Feed it the fused gravity (fast and immune to linear acceleration) when a gyroscope exists,
/// or gravity from ``AccelerationGravity`` otherwise. The rule, with the default ``Parameters``:
/// - Flat: the screen normal within 25° of vertical (|g.z| ≥ cos 25°) proposes faceUp/faceDown;
///   once flat, the device stays flat until the normal is more than 35° from vertical.
/// - Upright: the direction of gravity in the screen plane, φ = atan2(−g.x, −g.y) (0° portrait,
///   90° landscapeLeft, ±180° upside down, −90° landscapeRight), proposes the quarter it lies in
///   only within 30° of that quarter's centre and with the normal at least 35° from vertical.
///   The current upright state is kept while φ stays within 60° of its centre and the normal
///   more than 25° from vertical (hysteresis both ways).
/// - Never stale: when gravity has left the current state's region and nothing is proposed (a
///   diagonal dead zone, or the tilt band between flat and upright), the nearest state takes
///   over — flat below the upright minimum tilt, else the quarter φ lies in. Only `unknown`
///   waits in a dead zone (nothing known is contradicted there).
/// - No decision while the device accelerates hard (the caller's flag) or turns fast.
/// - A proposal becomes the orientation after it held for ``Parameters/settleTime`` — or at
///   once when the caller says the accelerometer has lain still (within
///   ``Parameters/stillTolerance``) for ``Parameters/stillTime``: a device set down in a new
///   position is not moving, there is nothing to wait out.
public struct OrientationDetector: Sendable {
    /// Thresholds (degrees, seconds, rad/s). Defaults grounded in iio-sensor-proxy (35° axis
    /// threshold, diagonal dead zone), Android's WindowOrientationListener (45° gap, settle) and
    /// UIKit's flat states.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Flat when the screen normal is within this angle of vertical…
        public var flatEnter = 25.0
        /// …and still flat until it is beyond this one.
        public var flatExit = 35.0
        /// Upright states are only proposed with the screen normal at least this far from vertical
        /// (a flat state set above ``flatExit`` holds up to here).
        public var uprightMinimumTilt = 35.0
        /// A new upright state needs φ within this angle of its centre (the rest is dead zone).
        public var proposeWithin = 30.0
        /// The current upright state holds while φ stays within this angle of its centre.
        public var keepWithin = 60.0
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
        candidate = nil
        return proposal
    }

    /// Forgets the orientation (e.g. the sensor was lost): back to unknown.
    public mutating func reset() {
        orientation = .unknown
        candidate = nil
    }

    /// The state `g` (unit) argues for, given the current one: the current one while `g` stays
    /// in its region, a proposed one, else the nearest (unknown only stays unknown).
    private func propose(_ g: Vector3) -> DeviceOrientation {
        let degrees = 180 / Double.pi
        let fromVertical = acos(min(1, abs(g.z))) * degrees // screen normal's angle from vertical
        let flat: DeviceOrientation = g.z < 0 ? .faceUp : .faceDown
        if fromVertical <= parameters.flatEnter { return flat }
        if orientation == .faceUp || orientation == .faceDown, fromVertical <= parameters.flatExit { return flat }
        let phi = atan2(-g.x, -g.y) * degrees
        if let centre = Self.centre(of: orientation), Self.distance(phi, centre) <= parameters.keepWithin { return orientation }
        if fromVertical >= parameters.uprightMinimumTilt,
           let state = Self.quarters.first(where: { Self.distance(phi, Self.centre(of: $0)!) <= parameters.proposeWithin }) {
            return state
        }
        // Gravity has left the current state's region and nothing is proposed.
        guard orientation != .unknown else { return .unknown }
        if fromVertical < parameters.uprightMinimumTilt { return flat }
        return Self.quarters.min { Self.distance(phi, Self.centre(of: $0)!) < Self.distance(phi, Self.centre(of: $1)!) }!
    }

    /// The upright states, in the order a proposal is looked for.
    private static let quarters = [DeviceOrientation.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight]

    /// The angle between two directions in the screen plane, degrees (0…180).
    private static func distance(_ a: Double, _ b: Double) -> Double {
        abs((a - b).remainder(dividingBy: 360))
    }

    /// φ at the centre of an upright state, degrees.
    static func centre(of state: DeviceOrientation) -> Double? {
        switch state {
        case .portrait: return 0
        case .landscapeLeft: return 90
        case .portraitUpsideDown: return 180
        case .landscapeRight: return -90
        default: return nil
        }
    }
}
