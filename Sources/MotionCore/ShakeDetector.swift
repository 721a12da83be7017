/// Detects shakes with iOS's motion-event semantics: `began` when something starts that may be a
/// shake, then exactly one of `ended` (it was a shake) or `cancelled` (it went on too long, was
/// too short to count, or the sensor was lost). Pure: time comes from the timestamps (seconds).
///
/// Input is user acceleration (G, device frame, gravity removed: the fused `userAcceleration`,
/// or acceleration minus ``AccelerationGravity`` without a gyroscope). A shake is back and
/// forth: an *excursion* is a stretch with |u| ≥ ``Parameters/threshold`` (it ends below half
/// of it), pointing where |u| peaked; a *reversal* is an excursion opposite to the previous one
/// (directions more than 120° apart) starting within ``Parameters/reversalWindow`` of its end.
/// - began: at the first reversal (a single jolt or tap never begins a shake);
/// - ended: quiet (no excursion) for ``Parameters/quietTime`` after at least
///   ``Parameters/requiredReversals`` reversals, within ``Parameters/maximumDuration``;
/// - cancelled: quiet with fewer reversals, shaking beyond the maximum duration (then nothing
///   more until quiet again), or ``cancel(at:)`` (sensor lost).
public struct ShakeDetector: Sendable {
    /// Defaults grounded in practice: Square's seismic counts a shake from |a| ≈ 1.3 G with
    /// gravity (¾ of samples over 0.25–0.5 s); common Android detectors use 1.7–2.7 G total with
    /// 0.5 s slop. A vigorous hand shake reaches 1.5–3 G of user acceleration at 3–6 Hz.
    public struct Parameters: Sendable, Hashable, Codable {
        /// User acceleration an excursion must reach, G.
        public var threshold = 1.0
        /// Longest pause between opposite excursions that still counts as a reversal, s.
        public var reversalWindow = 0.5
        /// Reversals needed for `ended` (3 excursions: there, back, there).
        public var requiredReversals = 2
        /// Quiet time that ends a shake, s.
        public var quietTime = 0.3
        /// A shake lasting longer than this is cancelled ("lasts too long"), s.
        public var maximumDuration = 3.0

        public init() {}
    }

    /// One shake motion event.
    public enum Phase: String, Sendable, Hashable, Codable {
        case began, ended, cancelled
    }

    public struct Event: Sendable, Hashable, Codable {
        public var phase: Phase
        public var timestamp: Double
    }

    public var parameters: Parameters
    /// True between `began` and its `ended`/`cancelled`.
    public private(set) var isShaking = false
    private var began = 0.0
    private var reversals = 0
    private var inExcursion = false
    private var peak = 0.0
    private var direction = Vector3.zero
    private var previousDirection: Vector3?
    private var lastActive = -Double.infinity
    private var suppressed = false

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Feeds one user-acceleration sample; returns the event it causes, if any.
    public mutating func update(userAcceleration u: Vector3, at time: Double) -> Event? {
        guard u.isFinite, time.isFinite else { return nil }
        let p = parameters
        let magnitude = u.norm
        if inExcursion {
            if magnitude > peak { (peak, direction) = (magnitude, u / magnitude) }
            if magnitude < p.threshold / 2 {
                inExcursion = false
                previousDirection = direction
            }
            lastActive = time
        } else if magnitude >= p.threshold {
            let reversal = previousDirection.map { $0.dot(u / magnitude) < -0.5 && time - lastActive <= p.reversalWindow } ?? false
            (inExcursion, peak, direction, lastActive) = (true, magnitude, u / magnitude, time)
            if reversal, !suppressed {
                reversals += 1
                if !isShaking {
                    (isShaking, began) = (true, time)
                    return Event(phase: .began, timestamp: time)
                }
            }
        }
        if isShaking, time - began > p.maximumDuration {
            finish()
            suppressed = true
            return Event(phase: .cancelled, timestamp: time)
        }
        guard !inExcursion, time - lastActive >= p.quietTime else { return nil }
        // Quiet: the motion is over.
        previousDirection = nil
        suppressed = false
        guard isShaking else {
            reversals = 0
            return nil
        }
        let phase: Phase = reversals >= p.requiredReversals ? .ended : .cancelled
        finish()
        return Event(phase: phase, timestamp: time)
    }

    /// The sensor was lost: a shake in progress is cancelled.
    public mutating func cancel(at time: Double) -> Event? {
        let wasShaking = isShaking
        finish()
        (inExcursion, previousDirection, suppressed) = (false, nil, false)
        return wasShaking ? Event(phase: .cancelled, timestamp: time) : nil
    }

    private mutating func finish() {
        isShaking = false
        reversals = 0
    }
}
