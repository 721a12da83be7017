/// A motion gesture event's kind. Wire names are the case names.
/// - `faceUp` / `faceDown`: the device was laid flat, screen up or down (a transition, reported
///   when the orientation detector changes to that state);
/// - `slapLeft` / `slapRight`: ``SlapDetector``;
/// - `tap` / `doubleTap`: ``TapDetector`` (stamped with the first tap's start);
/// - `rest` / `motion`: the estimator's rest detection started or ended (gyroscope within 2 °/s
///   and acceleration within 0.5 m/s² of their low-passes for 1.5 s).
public enum Gesture: String, Sendable, Hashable, Codable, CaseIterable {
    case faceUp, faceDown, slapLeft, slapRight, tap, doubleTap, rest, motion
}
