/// How a convertible is folded and set up, from its hinge angle and how its halves lie
/// (``PostureDetector`` decides it; docs/EVENTS.md has the thresholds and the peers' names).
///
/// - `closed`: the lid shut on the base.
/// - `laptop`: opened up to about flat, the usual way.
/// - `flat`: display and base in one plane (about 180°).
/// - `tent`: folded beyond flat and standing on both edges like an inverted V, the hinge on top
///   (the screen is upside down).
/// - `stand`: folded beyond flat with the base lying keyboard down and the display upright.
/// - `tablet`: folded all the way back: the display faces out, the keyboard beneath it.
/// - `unknown`: not decided yet.
public enum Posture: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case unknown
    case closed
    case laptop
    case flat
    case tent
    case stand
    case tablet

    /// Postures in which the keyboard faces away from the user or lies on the table: the ones
    /// a tablet-mode switch may report (which of them is the configuration's choice).
    public static let keyboardAway: [Posture] = [.tent, .stand, .tablet]

    public var description: String { rawValue }
}
