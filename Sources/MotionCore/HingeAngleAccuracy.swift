/// How far a ``HingeAngle`` can be trusted, from best to worst.
///
/// - `high`: both accelerometers at rest and the hinge axis well away from vertical: measured,
///   within a few degrees.
/// - `low`: measured while the convertible moves (smoothed; within about 10°), carried by the
///   gyroscopes, or a guess between closed and folded flat at start (the two read alike).
/// - `held`: the accelerometers cannot tell the angle now (the hinge axis near vertical: the
///   machine standing on its side); the last good value, kept until they can.
public enum HingeAngleAccuracy: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case held
    case low
    case high

    public static func < (a: HingeAngleAccuracy, b: HingeAngleAccuracy) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
