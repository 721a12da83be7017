import Glibc

/// Detects taps on the device — single and double — from the sharp, short spike a tap leaves
/// in the acceleration. Pure: time comes from the timestamps (seconds).
///
/// The acceleration (G, device frame) is high-passed with a short time constant
/// (``Parameters/highPassTau``), which removes gravity and ordinary motion but keeps a tap's
/// spike. A tap starts when the high-passed magnitude reaches ``Parameters/threshold`` and is
/// over once it stays below half of it for ``Parameters/ringTime`` (a tap rings for some tens of
/// milliseconds); if it stays above half the threshold longer than ``Parameters/maximumDuration``
/// it was a bump or a shake, not a tap. A second tap starting within
/// ``Parameters/doubleTapWindow`` of the first makes a double tap (reported when it ends);
/// otherwise the single tap is reported once the window has passed.
public struct TapDetector: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// High-pass time constant, s.
        public var highPassTau = 0.05
        /// High-passed magnitude a tap must reach, G.
        public var threshold = 1.5
        /// Quiet time (below half the threshold) that ends a tap, s.
        public var ringTime = 0.12
        /// Longest a tap may stay above half the threshold, s.
        public var maximumDuration = 0.25
        /// A second tap starting within this time of the first makes a double tap, s.
        public var doubleTapWindow = 0.5

        public init() {}
    }

    public enum Kind: String, Sendable, Hashable, Codable {
        case tap, doubleTap
    }

    public var parameters: Parameters
    private var lowPass = FirstOrderLowPass<Vector3>(tau: Parameters().highPassTau)
    /// The tap in progress: its start and the last time it was loud.
    private var current: (start: Double, loud: Double)?
    /// A finished single tap waiting for a possible second one: its start.
    private var pending: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds one accelerometer sample (G); returns a tap or double tap when one is decided.
    public mutating func update(acceleration a: Vector3, at time: Double) -> (kind: Kind, timestamp: Double)? {
        guard a.isFinite, time.isFinite else { return nil }
        let previous = lowPass.value
        lowPass.tau = parameters.highPassTau
        lowPass.update(a, at: time)
        guard let previous else { return nil }
        let magnitude = (a - previous).norm
        let p = parameters
        if var tap = current {
            if magnitude >= p.threshold / 2 { tap.loud = time }
            current = tap
            if tap.loud - tap.start > p.maximumDuration {
                // Too long for a tap: wait for quiet, then forget it.
                if time - tap.loud >= p.ringTime { current = nil }
                pending = nil
                return nil
            }
            guard time - tap.loud >= p.ringTime else { return nil }
            current = nil
            if let first = pending, tap.start - first <= p.doubleTapWindow {
                pending = nil
                return (.doubleTap, first)
            }
            pending = tap.start
            return nil
        }
        if magnitude >= p.threshold {
            current = (time, time)
            return nil
        }
        if let first = pending, time - first > p.doubleTapWindow {
            pending = nil
            return (.tap, first)
        }
        return nil
    }
}
