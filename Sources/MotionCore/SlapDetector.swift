import Glibc

/// Detects a slap — a sharp push of the device sideways — left or right.
///
/// The classic recipe high-passes x with α = 0.1 per sample, fires above 1 G, keeps a 0.5 s
/// refractory period unless the direction reverses, and reports the *last* direction after a 0.5 s
/// settle. Two corrections: the high-pass has a time constant (``Parameters/highPassTau``) instead
/// of a per-sample α, so it means the same at 20 and 200 Hz; and the *first* peak of a burst gives
/// the direction, because a slap's rebound (the device stopping) peaks the opposite way and the
/// last-direction rule reported it backwards. A burst is the peaks above the threshold until
/// ``Parameters/settleTime`` passes without one; it is reported then, and nothing for
/// ``Parameters/refractoryTime`` after, whatever the direction (the reversal exception is what
/// let rebounds through). A burst whose peaks change direction more than once (there, back,
/// there again) is a shake, not a slap, and is not reported. Input: acceleration x in G (device frame, gravity sign);
/// negative x (a push toward the left edge) is left.
public struct SlapDetector: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// High-pass time constant, s (α = 0.1 at 60 Hz).
        public var highPassTau = 0.15
        /// |high-passed x| that counts as a slap peak, G.
        public var threshold = 1.0
        /// Quiet time that ends a burst, s.
        public var settleTime = 0.5
        /// After a report, bursts are ignored this long, s.
        public var refractoryTime = 0.5

        public init() {}
    }

    public enum Direction: String, Sendable, Hashable, Codable {
        case left, right
    }

    public var parameters: Parameters
    private var lowPass = FirstOrderLowPass<Double>(tau: Parameters().highPassTau)
    private var burst: (direction: Direction, lastPeak: Double, sign: Double, reversals: Int)?
    private var quietUntil = -Double.infinity

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds the x acceleration (G) at `time`; returns a slap when a burst has settled.
    public mutating func update(x: Double, at time: Double) -> Direction? {
        guard x.isFinite, time.isFinite else { return nil }
        let previous = lowPass.value
        lowPass.tau = parameters.highPassTau
        lowPass.update(x, at: time)
        guard let previous else { return nil }
        let high = x - previous
        if abs(high) >= parameters.threshold, time >= quietUntil {
            let sign: Double = high < 0 ? -1 : 1
            if var current = burst {
                if sign != current.sign { current.reversals += 1 }
                (current.lastPeak, current.sign) = (time, sign)
                burst = current
            } else {
                burst = (sign < 0 ? .left : .right, time, sign, 0)
            }
        }
        guard let settled = burst, time - settled.lastPeak >= parameters.settleTime else { return nil }
        burst = nil
        quietUntil = time + parameters.refractoryTime
        return settled.reversals <= 1 ? settled.direction : nil
    }
}
