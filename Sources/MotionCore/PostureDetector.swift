/// Decides a convertible's ``Posture`` from its ``HingeAngle`` and the display's gravity, with
/// hysteresis and a settle time, and reports only changes. Pure: time comes from timestamps.
///
/// The rule, with the default ``Parameters`` (angles in degrees, 0 closed, 360 folded):
/// - The angle proposes `closed` up to 15°, `laptop` up to 170°, `flat` up to 190°, a folded
///   stand-or-tent up to 330° and `tablet` beyond; a posture is kept until the angle is
///   ``Parameters/hysteresis`` (5°) past its own range, so near a boundary it does not flap
///   (closing below 10° shuts it, opening beyond 20° opens it).
/// - Folded between flat and tablet, the display tells `tent` (upside down: the hinge on top,
///   gravity toward the display's top edge, g.y > ``Parameters/uprightShare``) from `stand`
///   (the display upright, g.y < −``Parameters/uprightShare``); in between, the one already
///   reported is kept (a fresh fold counts as `stand`).
/// - A `held` angle (the machine on its side, where the accelerometers cannot tell the angle,
///   or the base not read lately: at rest it is read every third display reading) changes
///   nothing: no posture, and so no tablet mode, comes from a guess, and a proposal waiting to
///   settle keeps waiting for the next measured angle.
/// - A proposal becomes the posture after it held for ``Parameters/settleTime`` (measured
///   angles) or ``Parameters/movingSettleTime`` (while the machine moves: accuracy `low`).
public struct PostureDetector: Sendable {
    /// Thresholds, degrees and seconds.
    public struct Parameters: Sendable, Hashable, Codable {
        /// `closed` up to this angle.
        public var closedBelow = 15.0
        /// `flat` from this angle…
        public var flatFrom = 170.0
        /// …up to this one.
        public var flatTo = 190.0
        /// `tablet` from this angle.
        public var tabletFrom = 330.0
        /// A posture is kept until the angle is this far beyond its range.
        public var hysteresis = 5.0
        /// Share of gravity along the display's y axis that tells tent (+) from stand (−).
        public var uprightShare = 0.3
        /// How long a proposal must hold before it is reported, with a measured angle…
        public var settleTime = 0.1
        /// …and with an angle measured in motion.
        public var movingSettleTime = 0.5

        public init() {}
    }

    public var parameters: Parameters
    /// The posture last reported.
    public private(set) var posture = Posture.unknown
    private var candidate: Posture?
    private var candidateSince = 0.0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds an angle and the display's gravity (G, device frame, any length) at the angle's
    /// time. Returns the new posture when it changes, nil otherwise.
    public mutating func update(_ angle: HingeAngle, displayGravity gravity: Vector3) -> Posture? {
        guard angle.accuracy != .held, angle.degrees.isFinite, gravity.isFinite, gravity.norm > 0.1 else { return nil }
        let proposal = keeps(posture, angle.degrees, gravity / gravity.norm) ? posture
            : propose(angle.degrees, gravity / gravity.norm)
        guard proposal != posture else {
            candidate = nil
            return nil
        }
        if candidate != proposal {
            candidate = proposal
            candidateSince = angle.timestamp
        }
        let wait = angle.accuracy == .high ? parameters.settleTime : parameters.movingSettleTime
        guard angle.timestamp - candidateSince >= wait else { return nil }
        posture = proposal
        candidate = nil
        return proposal
    }

    /// The angle range (lower, upper) of a posture; tent and stand share theirs.
    private func range(_ posture: Posture) -> (Double, Double) {
        let p = parameters
        switch posture {
        case .closed: return (-.infinity, p.closedBelow)
        case .laptop: return (p.closedBelow, p.flatFrom)
        case .flat: return (p.flatFrom, p.flatTo)
        case .tent, .stand: return (p.flatTo, p.tabletFrom)
        case .tablet: return (p.tabletFrom, .infinity)
        case .unknown: return (.nan, .nan)
        }
    }

    /// Whether the current posture still holds: the angle within its range widened by the
    /// hysteresis, and for tent and stand the display not clearly the other way up.
    private func keeps(_ posture: Posture, _ degrees: Double, _ up: Vector3) -> Bool {
        let (lower, upper) = range(posture)
        guard degrees > lower - parameters.hysteresis, degrees < upper + parameters.hysteresis else { return false }
        switch posture {
        case .tent: return up.y > -parameters.uprightShare
        case .stand: return up.y < parameters.uprightShare
        default: return true
        }
    }

    /// The posture whose own range holds the angle.
    private func propose(_ degrees: Double, _ up: Vector3) -> Posture {
        let p = parameters
        if degrees <= p.closedBelow { return .closed }
        if degrees < p.flatFrom { return .laptop }
        if degrees <= p.flatTo { return .flat }
        if degrees < p.tabletFrom { return up.y > p.uprightShare ? .tent : .stand }
        return .tablet
    }
}
