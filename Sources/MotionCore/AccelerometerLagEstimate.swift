/// How much later than the gyroscope the accelerometer's samples describe the motion, learned
/// online: the online counterpart of the offline smoother's search (``SensorLag``). An IMU filters
/// or averages each sensor on its own (a decimated stream's rows are means centred before their
/// timestamps), and a specific force read τ late is gravity turned by the angle the device turned
/// in τ: at 8 rad/s and 5 ms, 2.3° of inclination, which the magnetometer's dip then turns into
/// several degrees of heading.
///
/// Gravity is constant in an inertial frame, so the specific force turned into the gyroscope's
/// almost-inertial frame by its integrated attitude wobbles horizontally least at the right lag.
/// The reading taken as a − τ ω × a (turned forward by the rotation over τ) is linear in τ, so
/// the wobble of its band (see ``Band``) is ∑|P − τ Q|² with P the band of R a and Q the band of
/// R (ω × a), horizontal parts: a parabola in τ whose minimum, ∑P·Q / ∑Q·Q, needs two running sums.
///
/// Units: acceleration in G (either sign convention: the estimate is the same), rate rad/s
/// (bias removed), time s, lag s. Pure and deterministic.
public struct AccelerometerLagEstimate: Sendable {
    /// Where the lag shows: a low-pass at 1 s (linear accelerations average out) minus one at 3 s
    /// (what the inclination correction removes anyway, and the gyroscope's drift), each two
    /// second-order Butterworth sections in cascade. A causal filter weights the band by |H|, the
    /// offline smoother's zero-phase one by |H|²; the cascade gives the causal estimate that
    /// steepness: on BROAD it then settles within 30–60 s of motion on the offline estimate (one
    /// section each, 1 s and 10 s, settled later and lower, and on 34 at 13 ms against 7.6 ms).
    struct Band: Sendable {
        static let tau = (fast: 1.0, slow: 3.0)
        private var fast = (ButterworthLowPass<Vector3>(), ButterworthLowPass<Vector3>())
        private var slow = (ButterworthLowPass<Vector3>(), ButterworthLowPass<Vector3>())

        /// The band of `x`, one step with `c`'s coefficients.
        mutating func step(_ x: Vector3, _ c: (fast: ButterworthCoefficients, slow: ButterworthCoefficients)) -> Vector3 {
            fast.1.step(fast.0.step(x, c.fast), c.fast) - slow.1.step(slow.0.step(x, c.slow), c.slow)
        }

        /// At rest on `x`: its band is zero until `x` changes.
        mutating func reset(to x: Vector3) {
            fast.0.reset(to: x, tau: Self.tau.fast)
            fast.1.reset(to: x, tau: Self.tau.fast)
            slow.0.reset(to: x, tau: Self.tau.slow)
            slow.1.reset(to: x, tau: Self.tau.slow)
        }
    }

    /// The turning evidence (∫|Q|² dt over Q's horizontal band, G² rad²/s) below which the lag is
    /// taken as 0: BROAD's recordings hold 2.8–97 after 15 s of motion.
    public static let minimumEvidence = 2.0
    /// A step longer than this is a gap: the band filters restart.
    static let longestStep = 0.5

    private var force = Band(), turned = Band()
    private var coefficients = IntervalCache<(fast: ButterworthCoefficients, slow: ButterworthCoefficients)>()
    private var lastTime: Double?
    /// ∑P·Q dt (``evidence`` is ∑Q·Q dt).
    private var alignment = 0.0
    /// The turning evidence so far, G² rad²/s (``minimumEvidence``).
    public private(set) var evidence = 0.0

    public init() {}

    /// Starts from a lag learned before (a saved state), as if from ``minimumEvidence`` of
    /// turning that found it: used at once, and new evidence soon outweighs it.
    public init(assuming lag: Double) {
        evidence = Self.minimumEvidence
        alignment = lag * evidence
    }

    /// The lag, s: 0 until ``minimumEvidence``, then the fitted one within
    /// ``MotionEngine/SensorLags/believable``.
    public var lag: Double {
        let believable = MotionEngine.SensorLags.believable
        return evidence >= Self.minimumEvidence ? min(max(alignment / evidence, believable.lowerBound), believable.upperBound) : 0
    }

    /// Feeds one accelerometer sample `acceleration` with the rotation rate at its time and the
    /// gyroscope's integrated attitude then (device → its almost-inertial frame, Z about up).
    public mutating func update(acceleration: Vector3, rate: Vector3, attitude: Quaternion, at time: Double) {
        guard acceleration.isFinite, rate.isFinite, time.isFinite else { return }
        let p = attitude.rotate(acceleration), q = attitude.rotate(rate.cross(acceleration))
        let dt = lastTime.map { time - $0 }
        guard let dt, dt > 0 else {
            if dt == nil { restart(p, q, at: time) }
            return
        }
        guard dt <= Self.longestStep else { return restart(p, q, at: time) }
        lastTime = time
        let c = coefficients.value(for: dt) { dt in
            (ButterworthCoefficients(tau: Band.tau.fast, dt: dt), ButterworthCoefficients(tau: Band.tau.slow, dt: dt))
        }
        let pb = force.step(p, c), qb = turned.step(q, c)
        alignment += (pb.x * qb.x + pb.y * qb.y) * dt
        evidence += (qb.x * qb.x + qb.y * qb.y) * dt
    }

    /// The band filters start at rest on the sample (after the first sample or a gap); the sums stay.
    private mutating func restart(_ p: Vector3, _ q: Vector3, at time: Double) {
        lastTime = time
        force.reset(to: p)
        turned.reset(to: q)
    }
}
