import Glibc

/// Estimates a convertible's ``HingeAngle`` from the display's and the base's accelerometers,
/// and from the two gyroscopes when both exist. Pure: time comes from the timestamps passed in.
///
/// Frames: each sensor after its mount matrix, so that with the lid closed the base reads what
/// the display reads (the udev hwdb's convention for base sensors), x along the hinge. Opening
/// the lid turns the display about x relative to the base, so any vector both sensors measure
/// has the same x component on both, and its direction in the y–z plane differs by the angle:
/// θ = atan2(b.y, b.z) − atan2(d.y, d.z), in [0°, 360°) (the display turns by −θ about x).
/// Both measure gravity plus the same linear acceleration, so carrying the machine does not
/// disturb the angle; what does is what differs between the two sensors — rotation (lever
/// arms), readings taken at different instants — which shows as a difference between their x
/// components or their y–z lengths (the *mismatch*, G).
///
/// The rule:
/// - Each sample of either accelerometer is paired with the other's newest (at most
///   ``Parameters/pairingWindow`` apart: at the rest rate their readings come batched, one
///   sensor after the other) and measures θ; the estimate follows it through a
///   low-pass of time constant ``Parameters/restTau`` when the mismatch is below
///   ``Parameters/mismatchTolerance``, lengthening up to ``Parameters/motionTau`` as it grows
///   (accuracy `high` when the sensors agree and the axis is clear, `low` otherwise).
/// - When gravity lies near the hinge axis (the machine on its side), the y–z parts are short
///   and their direction is noise: from ``Parameters/axisSmoothingStart`` (the axis's share of
///   the reading, |x|/|a|) the measurement counts less, and from ``Parameters/axisHold`` not
///   at all — the last good value is held (accuracy `held`): no jump, no flapping.
/// - Closed (0°) and folded into a tablet (360°) read alike: the estimate moves continuously
///   (a measurement within ``Parameters/ambiguityMargin`` of either end taken as the one of
///   θ, θ ± 360° nearest the estimate) and is kept within [0°, 360°]. With nothing to go on at
///   start, such a reading is taken as closed when the screen faces down and as a tablet when
///   it faces up (accuracy `low` until the angle leaves the margin); upright, the estimator
///   waits.
/// - With both gyroscopes, their rates about x carry the angle between accelerometer samples
///   (dθ/dt = ω_base.x − ω_display.x) and while the geometry hides it (for at most
///   ``Parameters/gyroscopeHoldLimit``: their biases drift it); the accelerometers correct it
///   as above at rest, and in motion only slowly (``Parameters/gyroscopeMotionTau``): there
///   the gyroscopes do the work.
///
/// Units: accelerometers in G with the gravity-vector sign (face up reads z ≈ −1: the start-up
/// guess reads the screen's facing from it), gyroscopes rad/s.
public struct HingeEstimator: Sendable {
    /// Thresholds, in G, seconds and degrees.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Time constant of the estimate when the two sensors agree.
        public var restTau = 0.05
        /// …and when they disagree by ``mismatchLimit`` or more (the machine moves)…
        public var motionTau = 0.8
        /// …or, with both gyroscopes carrying the angle, this.
        public var gyroscopeMotionTau = 4.0
        /// The mismatch (G) up to which the sensors count as agreeing…
        public var mismatchTolerance = 0.05
        /// …and from which the longest time constant applies.
        public var mismatchLimit = 0.25
        /// The hinge axis's share of gravity from which the measurement counts less…
        public var axisSmoothingStart = 0.7
        /// …and at which it is not used at all (the last value is held).
        public var axisHold = 0.9
        /// A display sample is paired only with a base sample at most this much older or newer.
        public var pairingWindow = 0.1
        /// A gap longer than this between display samples starts the low-pass afresh.
        public var maximumGap = 0.5
        /// With gyroscopes: how long they may carry the angle without a correction.
        public var gyroscopeHoldLimit = 10.0
        /// At start, a reading this close to 0° or 360° is ambiguous (see the type's rule).
        public var ambiguityMargin = 30.0
        /// At start, the screen counts as facing up or down when the display's z reading is
        /// beyond this share of its length.
        public var screenFacing = 0.5

        public init() {}
    }

    public var parameters: Parameters
    /// Seconds between the base readings the reader chose to take (a resting convertible's base
    /// is read every few display readings), 0 when it reads every period; set by the owner. A
    /// measurement stays current for 1.5 times it (at least ``Parameters/maximumGap``), so the
    /// display readings between two base readings report it rather than a held value.
    public var baseReadingInterval = 0.0
    /// How long a measurement stays current (see ``baseReadingInterval``).
    var measurementValidity: Double { max(parameters.maximumGap, 1.5 * baseReadingInterval) }
    /// The angle last produced, nil before the first.
    public private(set) var angle: HingeAngle?
    private var base: (reading: Vector3, time: Double)?
    private var display: (reading: Vector3, time: Double)?
    /// The time of the last pairing measured.
    private var lastMeasurement: Double?
    /// The newest gyroscope rates about the hinge axis, rad/s, with their times.
    private var displayRate: (x: Double, time: Double)?
    private var baseRate: (x: Double, time: Double)?
    /// When the gyroscopes last carried the angle, and when the accelerometers last corrected it.
    private var lastCorrection: Double?
    /// The start-up guess between closed and tablet is still in force.
    private var guessing = false

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Forgets the estimate (after a gap long enough for the lid to have moved).
    public mutating func reset() {
        let interval = baseReadingInterval
        self = HingeEstimator(parameters: parameters)
        baseReadingInterval = interval
    }

    /// Feeds a base accelerometer sample, measured with the newest display sample when they are
    /// close in time (the two sensors' readings may come in batches, one after the other).
    public mutating func update(base reading: Vector3, at time: Double) {
        guard reading.isFinite, time.isFinite, reading.norm > 0.1 else { return }
        base = (reading, time)
        if let display, abs(display.time - time) <= parameters.pairingWindow {
            _ = measure(display.reading, reading, at: max(time, display.time))
        }
    }

    /// Feeds a base gyroscope sample (rad/s).
    public mutating func update(baseRotationRate rate: Vector3, at time: Double) {
        guard rate.isFinite, time.isFinite else { return }
        baseRate = (rate.x, time)
    }

    /// Feeds a display gyroscope sample (rad/s, bias removed); with a recent base rate, it
    /// turns the estimate by the relative rotation about the hinge since the previous one.
    public mutating func update(displayRotationRate rate: Vector3, at time: Double) {
        guard rate.isFinite, time.isFinite else { return }
        defer { displayRate = (rate.x, time) }
        guard var current = angle, let previous = displayRate, let baseRate,
              abs(baseRate.time - time) <= parameters.pairingWindow else { return }
        let dt = time - previous.time
        guard dt > 0, dt <= parameters.maximumGap else { return }
        if let lastCorrection, time - lastCorrection > parameters.gyroscopeHoldLimit { return }
        // The display's rate averaged over the step (trapezoid): fast folds turn hundreds of
        // degrees a second.
        let relative = baseRate.x - (rate.x + previous.x) / 2
        current.degrees = Self.clamped(current.degrees + relative * dt * 180 / .pi)
        angle = current
    }

    /// Feeds a display accelerometer sample and returns the angle at its time (nil until one is
    /// known): measured with the newest base sample when they are close in time; else the last
    /// measurement's, when it is current (readings batched at the rest rate reach the estimator
    /// one sensor after the other, and a resting base is read less often: ``baseReadingInterval``);
    /// else held.
    public mutating func update(display reading: Vector3, at time: Double) -> HingeAngle? {
        guard reading.isFinite, time.isFinite, reading.norm > 0.1 else { return angle }
        display = (reading, time)
        if let base, abs(base.time - time) <= parameters.pairingWindow {
            return measure(reading, base.reading, at: max(time, base.time)).map { angle in
                var now = angle
                now.timestamp = time
                return now
            }
        }
        if var current = angle, let lastMeasurement, time - lastMeasurement >= 0, time - lastMeasurement <= measurementValidity {
            current.timestamp = time
            return current
        }
        return held(at: time)
    }

    /// One pairing of the two accelerometers at `time`: the estimate moves toward it (see the
    /// type's rule). Returns the angle, nil while none is known.
    private mutating func measure(_ display: Vector3, _ base: Vector3, at time: Double) -> HingeAngle? {
        let dt = lastMeasurement.map { time - $0 }
        // A pairing no later than the last one adds nothing.
        if let dt, dt <= 0 { return angle }
        lastMeasurement = time
        let p = parameters
        let base = (reading: base, time: time)
        // The hinge axis's share of either reading: near 1, the y–z directions are noise.
        let axisShare = max(abs(display.x) / display.norm, abs(base.reading.x) / base.reading.norm)
        guard axisShare < p.axisHold else { return held(at: time) }
        let displayPlane = (display.y * display.y + display.z * display.z).squareRoot()
        let basePlane = (base.reading.y * base.reading.y + base.reading.z * base.reading.z).squareRoot()
        let mismatch = max(abs(display.x - base.reading.x), abs(displayPlane - basePlane))
        let measured = Self.normalized((atan2(base.reading.y, base.reading.z) - atan2(display.y, display.z)) * 180 / .pi)

        guard var estimate = angle?.degrees else {
            guard let start = startingAngle(measured, display: display) else { return nil }
            angle = HingeAngle(degrees: start, accuracy: guessing ? .low : .high, timestamp: time)
            lastCorrection = time
            return angle
        }
        // Closed and folded stay apart: near either end, the measurement is taken as whichever
        // of its representations within the margin lies nearest the estimate.
        var nearest = measured
        if measured < p.ambiguityMargin, abs(measured + 360 - estimate) < abs(measured - estimate) { nearest += 360 }
        if measured > 360 - p.ambiguityMargin, abs(measured - 360 - estimate) < abs(measured - estimate) { nearest -= 360 }

        // Weight: 1 when the sensors agree and the axis is well away from gravity, falling to
        // 0 as either gets worse; the time constant grows as the weight falls.
        let agreement = 1 - Self.ramp(mismatch, from: p.mismatchTolerance, to: p.mismatchLimit)
        let geometry = 1 - Self.ramp(axisShare, from: p.axisSmoothingStart, to: p.axisHold)
        let carriedByGyroscopes = displayRate.map { abs($0.time - time) <= p.pairingWindow } == true
            && baseRate.map { abs($0.time - time) <= p.pairingWindow } == true
        let tau = p.restTau + ((carriedByGyroscopes ? p.gyroscopeMotionTau : p.motionTau) - p.restTau) * (1 - agreement)
        let gain: Double
        if let dt, dt > 0, dt <= p.maximumGap { gain = (1 - exp(-dt / tau)) * geometry } else { gain = geometry }
        estimate = Self.clamped(estimate + (nearest - estimate) * gain)
        if gain > 0 { lastCorrection = time }
        if guessing, estimate > p.ambiguityMargin, estimate < 360 - p.ambiguityMargin { guessing = false }
        let measuredAtRest = agreement == 1 && geometry == 1
        angle = HingeAngle(degrees: estimate, accuracy: measuredAtRest && !guessing ? .high : .low, timestamp: time)
        return angle
    }

    /// The last value, flagged `held` (or `low` while the gyroscopes carry it), at `time`.
    private mutating func held(at time: Double) -> HingeAngle? {
        guard var current = angle else { return nil }
        let gyroscopesCarry = lastCorrection.map { time - $0 <= parameters.gyroscopeHoldLimit } == true
            && displayRate.map { abs($0.time - time) <= parameters.pairingWindow } == true
            && baseRate.map { abs($0.time - time) <= parameters.pairingWindow } == true
        current.accuracy = gyroscopesCarry ? .low : .held
        current.timestamp = time
        angle = current
        return current
    }

    /// The first estimate: the measurement, unless it lies within the ambiguity margin of both
    /// closed and folded — then the way the screen faces decides, or nothing yet.
    private mutating func startingAngle(_ measured: Double, display: Vector3) -> Double? {
        let margin = parameters.ambiguityMargin
        guard measured < margin || measured > 360 - margin else { return measured }
        let facing = display.z / display.norm
        // Gravity-vector sign (face up reads z ≈ −1); a sensor using the other sign would swap
        // the guess, which stays flagged `low` until the angle leaves the margin.
        guard abs(facing) >= parameters.screenFacing else { return nil }
        guessing = true
        let folded = facing < 0
        return Self.clamped(folded ? (measured > 180 ? measured : measured + 360) : (measured < 180 ? measured : measured - 360))
    }

    /// A value in [0, 360).
    static func normalized(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }

    /// Within the hinge's mechanical range, [0, 360].
    static func clamped(_ degrees: Double) -> Double { min(max(degrees, 0), 360) }

    /// 0 up to `from`, 1 from `to`, linear between.
    static func ramp(_ value: Double, from: Double, to: Double) -> Double {
        value <= from ? 0 : value >= to ? 1 : (value - from) / (to - from)
    }
}
