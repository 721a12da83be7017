import Glibc

/// Learns the magnetometer's hard-iron offset and soft-iron distortion online from ordinary
/// device motion, and rates the result like Core Motion's `CMMagneticFieldCalibrationAccuracy`.
///
/// Retention: samples (raw, device frame, µT) are binned by the direction of `raw − binCentre`
/// into the 96 ``DirectionBins`` and each bin keeps only its newest sample, so the retained set
/// is bounded and spread over the sphere however long the device lingers in one region. The
/// centre is the mean of the retained samples until a fit is accepted (so a hard iron larger than
/// Earth's field still spreads the samples), then the fit's offset, re-sorting the bins whenever
/// the accuracy rises. Samples closer to the centre than ``Parameters/minimumSampleDistance``
/// are dropped (a device at rest fills no bins with noise).
///
/// Fitting (``EllipsoidFit``) happens only when a bin fills for the first time and after every
/// ``Parameters/refitInterval`` retained samples, from ``Parameters/lowMinimumBins`` filled bins:
/// a sphere, and an ellipsoid as well from ``Parameters/mediumMinimumBins``. A fit is plausible
/// when its field strength R lies in ``Parameters/plausibleFieldStrength`` and its axis ratio is at
/// most ``Parameters/maximumAxisRatio``. Its level, with coverage = the bins the retained samples
/// fill around the fit's offset and residual = the RMS of (|W(m − c)| − R)/R over them (defaults):
/// - high: ellipsoid, coverage ≥ 60 of 96 bins, residual ≤ 2 %, R within 20–70 µT (Earth's field);
/// - medium: ellipsoid, coverage ≥ 40, residual ≤ 4 %;
/// - low: sphere or ellipsoid, coverage ≥ 24, residual ≤ 8 %;
/// - otherwise the fit is discarded (accuracy stays uncalibrated until a fit is accepted).
/// Coverage is measured around the fit's own centre, so the ring that turning about one axis traces
/// never covers enough bins, wherever a fit puts the centre.
/// The readings as they come (the identity calibration, where every magnetometer starts) are
/// kept unless they cannot explain the field: many magnetometers are calibrated before motiond
/// sees them (a HID sensor hub's firmware, a recording calibrated by its authors), and a fit of
/// the few directions seen so far always explains its own samples a little better without being
/// closer to the truth. Judged on the retained samples like a fit, with the field strength that
/// suits them best (their mean magnitude), they are replaced only when their residual exceeds
/// ``Parameters/trustedResidual`` (an uncalibrated magnetometer's hard iron of tens of µT makes
/// it far larger), that field strength is implausible (a hard iron larger than Earth's field), or
/// the fit finds a hard iron of at least ``Parameters/largeHardIron`` of the field strength —
/// or of ``Parameters/smallHardIron`` at medium accuracy or better: the smaller the hard iron,
/// the more evidence it needs — and the fit's residual is at most
/// ``Parameters/replacementResidualRatio`` of theirs;
/// otherwise they stay, rated by that judgement, so an already calibrated magnetometer reaches
/// medium and high as it is. A fitted calibration gives way to a fit of higher level, or of
/// equal level with a smaller residual than its own on the same samples; after collection
/// restarted (below), to the first acceptable fit. One that stays is rated by the same judgement
/// (so a gyroscope's fit that holds the field stiller than the ellipsoid does still rises to the
/// level the samples support). Refitting never lowers the accuracy.
///
/// With a gyroscope (``update(rate:)``), turning is evidence too: in a field constant in the world
/// the right calibration makes the readings turn exactly as the gyroscope says
/// (``MagnetometerGyroscopeAgreement``), whatever part of the sphere they cover. Every 2 s of
/// readings (10 s after the first minute of evidence), while the accuracy is at most low and the evidence holds
/// ``Parameters/gyroscopeMinimumTurning``, the calibration that agrees best with the gyroscope
/// (hard iron alone, or with the soft iron when that explains the turning better per degree of
/// freedom) is fitted. It replaces the readings as they come when it leaves at most
/// ``Parameters/gyroscopeFitRatio`` of what they leave of the gyroscope's prediction and finds a
/// hard iron of at least ``Parameters/gyroscopeFitHardIron`` of the field strength (so readings
/// calibrated already stay exactly as they are, and an uncalibrated laptop's tens of µT are
/// corrected within seconds of turning, at low accuracy); it replaces a fitted calibration that
/// leaves more. Sphere and ellipsoid fits then refine it as above, but none replaces a fitted
/// calibration that holds the field stiller in the frame the gyroscope's attitude turns into over
/// the last minute (``MagnetometerAttitudeAgreement``, which a slow turn informs far better than
/// the short windows do). No margin favours the calibration in use: a margin of a tenth kept
/// wrong fits for minutes (docs/ACCURACY.md). Near a magnet that stays in the room (BROAD 30 and
/// 31) the world's field is not constant and the gyroscope's evidence can mislead
/// (docs/ACCURACY.md measures it).
///
/// Disturbances: while the fit is at least medium, a sample whose calibrated magnitude is off R by
/// more than ``Parameters/deviationTolerance`` is not retained (a passing magnet cannot spoil the
/// set), and the fraction of such samples is averaged over ``Parameters/deviationTau``. When more
/// than half of the recent samples are off, the device's own field has changed (a magnet, a closed
/// lid): the retained samples are dropped, the accuracy falls to at most low (the previous
/// calibration stays in use until a new fit is accepted) and collection starts afresh. A low fit is
/// too uncertain to judge samples by: it retains them all and gives way as soon as the set supports
/// a better fit.
///
/// Pure and deterministic: time comes from the sample timestamps (s).
public struct MagnetometerCalibrator: Sendable {
    /// Tuning; defaults are what the daemon ships. Fields µT, times s, fractions relative to R.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Samples closer than this to the binning centre are not retained (their direction is noise).
        public var minimumSampleDistance = 10.0
        /// Refit after this many retained samples even when no new bin filled, keeping the fit
        /// current; a fit of 96 samples costs about 20 µs, i.e. 20 ns per sample.
        public var refitInterval = 1000
        /// Field strengths a fit may have; Earth's is 25–65 µT.
        public var plausibleFieldStrength = 10.0...100.0
        /// Largest ratio of the longest to the shortest ellipsoid semi-axis.
        public var maximumAxisRatio = 2.0
        /// Accuracy levels: least coverage (filled bins of 96) and largest relative RMS residual.
        public var lowMinimumBins = 24
        public var lowMaximumResidual = 0.08
        public var mediumMinimumBins = 40
        public var mediumMaximumResidual = 0.04
        public var highMinimumBins = 60
        public var highMaximumResidual = 0.02
        /// High accuracy also needs the field strength of Earth's field.
        public var highFieldStrength = 20.0...70.0
        /// A sample is off the fit when its calibrated magnitude differs from R by more than this.
        public var deviationTolerance = 0.1
        /// Time constant of the averaged fraction of samples off the fit: with every sample off,
        /// collection restarts after τ·ln 2 ≈ 3.5 s (a magnet passing for 2 s does not restart it).
        public var deviationTau = 5.0
        /// The readings as they come are kept while their relative residual is at most this.
        /// Calibrated recordings (BROAD) show up to 6 % with a vibrating phone attached and 16 %
        /// with a magnet 3 cm away; an uncalibrated hard iron of 30 µT gives about 40 %.
        public var trustedResidual = 0.2
        /// …unless a fit finds a hard iron of at least this fraction of the field strength, at
        /// medium accuracy or better (the calibrated but disturbed BROAD recordings fit as at
        /// most 0.09 at any level, and 0.28 at low only: the magnet of 34, 3 cm away)…
        public var smallHardIron = 0.1
        /// …or of at least this fraction at any level (an uncalibrated magnetometer's hard iron
        /// of tens of µT)…
        public var largeHardIron = 0.4
        /// …and beyond either, replaced only by a fit whose residual is at most this fraction of theirs.
        public var replacementResidualRatio = 0.5
        /// The gyroscope's evidence (``MagnetometerGyroscopeAgreement``) counts from this much
        /// turning, ``MagnetometerGyroscopeAgreement/turning`` (about ∫|ω|² dt), rad²/s: 6 s of
        /// a figure eight, 20 s at 1 rad/s.
        public var gyroscopeMinimumTurning = 20.0
        /// The readings as they come give way to the gyroscope's own fit when it leaves at most
        /// this fraction of what they leave of the gyroscope's prediction and finds a hard iron of
        /// at least ``gyroscopeFitHardIron`` of the field strength: an uncalibrated magnetometer
        /// is corrected from turning alone, before its readings cover the sphere.
        public var gyroscopeFitRatio = 0.85
        public var gyroscopeFitHardIron = 0.15
        /// A low fit's offset (a gyroscope fit's, or a sphere's over few directions) is refined
        /// every 2 s from the field held still over the last minute (``MagnetometerAttitudeAgreement``),
        /// which a slow turn informs far better than the gyroscope's short windows: replaced by
        /// the offset that holds it stillest with the fit's soft iron when that lies within this
        /// many µT of it, leaves at most ``attitudeOffsetGain`` of what the offset in use leaves
        /// and the windows leave at most ``attitudeOffsetWindowTolerance`` of theirs (near a magnet
        /// in the room the field is not still in the world, and the windows, seconds long, are
        /// misled less). Chosen on the shared recordings' iron variants (docs/ACCURACY.md).
        public var attitudeOffsetStep = 1.5
        public var attitudeOffsetGain = 0.97
        public var attitudeOffsetWindowTolerance = 1.02
        /// Seconds of that evidence needed first (after the start, or a restart of collection:
        /// a magnet that appeared): a few seconds of it determine the offset no better than the
        /// windows do.
        public var attitudeOffsetEvidence = 20.0
        public init() {}
    }

    /// A retained sample: the raw reading (µT) and its time (s).
    public struct RetainedSample: Sendable, Hashable, Codable {
        public var field: Vector3
        public var time: Double
    }

    /// Everything the calibrator has learned, to be saved and restored across daemon restarts.
    public struct State: Sendable, Hashable, Codable {
        /// The calibration in use: identity until a fit is accepted; kept when collection restarts.
        public var calibration = MagnetometerCalibration.identity
        /// The published accuracy.
        public var accuracy = MagneticFieldCalibrationAccuracy.uncalibrated
        /// Level of the fit accepted from the current sample set; uncalibrated while (re)collecting.
        public var fitAccuracy = MagneticFieldCalibrationAccuracy.uncalibrated
        /// Relative RMS residual of the accepted fit over the samples retained when it was accepted.
        public var residual = 0.0
        /// One slot per ``DirectionBins`` bin: its newest sample, or nil.
        public var samples = [RetainedSample?](repeating: nil, count: DirectionBins.count)
        /// The point whose direction to a sample selects its bin, µT.
        public var binCentre = Vector3.zero
        /// Samples retained since the last fit attempt (see ``Parameters/refitInterval``).
        public var samplesSinceFit = 0
        /// Recent fraction of samples off the accepted fit (weighted over `deviationTau`).
        public var deviation = 0.0
        /// Time of the latest sample, s.
        public var lastTime: Double?
        /// The latest samples off the fit within the last ``Parameters/deviationTau`` (nil: none;
        /// at most 500): a lasting change of the field starts its new collection with them.
        public var recentOff: [RetainedSample]?

        /// Number of filled bins.
        public var coverage: Int { samples.count { $0 != nil } }
    }

    public var parameters: Parameters
    public private(set) var state: State
    /// The gyroscope's evidence since collection (re)started; not saved (it is seconds old).
    public private(set) var agreement = MagnetometerGyroscopeAgreement()
    /// The field held still over the last minute in the frame the fusion's attitude turns into:
    /// what a sphere or ellipsoid fit must not do worse at than the calibration in use. Not saved.
    public private(set) var attitudeAgreement = MagnetometerAttitudeAgreement()
    /// ``MagnetometerGyroscopeAgreement/closedWindows`` at the last gyroscope fit.
    private var gyroscopeFitWindows = 0
    /// How much later than the gyroscope the magnetometer's readings are, s: the lag that suits
    /// the calibration in use best (``MagnetometerGyroscopeAgreement/lag(of:)``), refitted on the
    /// gyroscope fits' schedule and whenever the calibration changes, once the evidence holds
    /// ``Parameters/gyroscopeMinimumTurning``; 0 or ``assumeLag(_:)``'s before. A property of the
    /// device: kept when collection restarts, saved with the engine's state.
    public private(set) var lag = 0.0
    /// ``MagnetometerGyroscopeAgreement/closedWindows`` at the last lag fit.
    private var lagFitWindows = 0
    /// ``MagnetometerGyroscopeAgreement/closedWindows`` at the last refinement of the offset.
    private var refineWindows = 0
    /// Windows between gyroscope fits: 2 s over the first minute of evidence (after the start or
    /// a restart of collection), 10 s after it (a fit of 60 s of windows costs about a millisecond).
    static let gyroscopeFitInterval = Int((2 / MagnetometerGyroscopeAgreement.windowLength).rounded())
    static let gyroscopeRefitInterval = Int((10 / MagnetometerGyroscopeAgreement.windowLength).rounded())
    /// At most this many recent samples off the fit are kept (5 s at 100 Hz).
    public static let recentOffLimit = 500

    /// Starts uncalibrated, with no samples.
    public init(parameters: Parameters = .init()) {
        self.parameters = parameters
        state = State()
    }

    /// Continues from a saved state. A state whose sample set does not match the bin layout keeps
    /// its calibration and accuracy and collects samples afresh.
    public init(parameters: Parameters = .init(), restoring state: State) {
        self.parameters = parameters
        self.state = state
        if state.samples.count != DirectionBins.count { restartCollection() }
    }

    /// The calibration in use (identity until the first accepted fit).
    public var calibration: MagnetometerCalibration { state.calibration }
    /// How far the calibration can be trusted; see the type's documentation for the criteria.
    public var accuracy: MagneticFieldCalibrationAccuracy { state.accuracy }

    /// True when the user should move the device in a figure eight (the analog of Core Motion's
    /// `showsDeviceMovementDisplay`): exactly when the accuracy is below medium.
    public var calibrationNeeded: Bool { state.accuracy < .medium }

    /// The calibrated field for a raw reading, µT.
    public func calibrated(_ raw: Vector3) -> Vector3 { state.calibration.apply(raw) }

    /// The mean angle (radians) between what `previous` and the calibration in use make of the
    /// retained readings and `raw`: how far a change of calibration turns the field. One reading
    /// alone can hide a new hard iron (one along the offset's direction is barely turned).
    public func turn(from previous: MagnetometerCalibration, including raw: Vector3) -> Double {
        let readings = state.samples.compactMap { $0?.field } + [raw]
        return readings.reduce(0) { sum, reading in
            let old = previous.apply(reading), new = state.calibration.apply(reading)
            let product = old.norm * new.norm
            return sum + (product > 0 ? acos(max(-1, min(1, old.dot(new) / product))) : .pi / 2)
        } / Double(readings.count)
    }

    /// Takes `lag` (s, a lag learned before: a saved state) until the gyroscope's evidence fits one.
    public mutating func assumeLag(_ lag: Double) {
        self.lag = min(max(lag, 0), MagnetometerGyroscopeAgreement.largestLag)
    }

    /// Feeds the gyroscope's rate (device frame, rad/s, bias removed), held until the next one.
    public mutating func update(rate: Vector3) {
        agreement.update(rate: rate)
    }

    /// The attitude's frame restarted (the fusion restarted after a gap): readings before it are
    /// not comparable with those after.
    public mutating func restartAttitude() {
        attitudeAgreement.reset()
    }

    /// Feeds one raw magnetometer sample (device frame, µT) at `time` (s), with the fusion's
    /// attitude then (device → a frame fixed in the world; nil before it has one). Samples with a
    /// non-finite component or time are ignored. Returns whether ``calibration`` changed.
    @discardableResult
    public mutating func update(_ raw: Vector3, at time: Double, attitude: Quaternion? = nil) -> Bool {
        guard raw.isFinite, time.isFinite else { return false }
        observe(raw, at: time)
        if let attitude {
            // The reading describes the field `lag` seconds ago: pair it with the attitude then.
            let rate = agreement.rate ?? .zero, angle = rate.norm * lag
            attitudeAgreement.update(field: raw, attitude: angle > 0 ? attitude * Quaternion(axis: rate, angle: -angle) : attitude, at: time)
        }
        let gyroscopeFitted = state.fitAccuracy <= .low && agreement.closedWindows >= gyroscopeFitWindows + fitInterval
            && agreement.turning >= parameters.gyroscopeMinimumTurning && adoptGyroscopeFit()
        let considered = consider(raw, at: time)
        let refined = state.fitAccuracy <= .low && !state.calibration.isIdentity && agreement.closedWindows >= refineWindows + Self.gyroscopeFitInterval
            && agreement.turning >= parameters.gyroscopeMinimumTurning && refineOffset()
        let changed = considered || gyroscopeFitted || refined
        // A new calibration needs its own lag: the one fitted with the old can be far off (BROAD
        // 34: 0 ms for the identity against 11 ms for the magnet's fit) and would stand until the
        // next scheduled fit, 2–10 s later.
        if changed, agreement.turning >= parameters.gyroscopeMinimumTurning { refitLag() }
        return changed
    }

    /// Feeds one raw magnetometer sample to the gyroscope's evidence only, refitting ``lag``:
    /// what a trusted magnetometer (whose readings are not calibrated here) still needs.
    public mutating func observe(_ raw: Vector3, at time: Double) {
        guard raw.isFinite, time.isFinite else { return }
        agreement.update(field: raw, at: time)
        if agreement.closedWindows >= lagFitWindows + fitInterval, agreement.turning >= parameters.gyroscopeMinimumTurning { refitLag() }
    }

    /// ``lag`` refitted for the calibration in use.
    private mutating func refitLag() {
        lagFitWindows = agreement.closedWindows
        lag = agreement.lag(of: state.calibration)
    }

    /// Windows between fits: 2 s over the first minute of evidence, 10 s after it.
    private var fitInterval: Int {
        agreement.closedWindows < MagnetometerGyroscopeAgreement.windowLimit ? Self.gyroscopeFitInterval : Self.gyroscopeRefitInterval
    }

    /// The gyroscope's own fit, adopted at low accuracy when it beats the calibration in use
    /// (see ``Parameters/gyroscopeFitRatio``); whether it was.
    private mutating func adoptGyroscopeFit() -> Bool {
        gyroscopeFitWindows = agreement.closedWindows
        let points = state.samples.compactMap { $0?.field }
        guard !points.isEmpty, let inUse = agreement.residual(of: state.calibration) else { return false }
        // The hard iron alone (3 unknowns and the lag) or with the soft iron (12 and the lag): the
        // full fit is taken only when what it leaves per degree of freedom is a tenth smaller, so
        // a few windows of one kind of turning do not choose a soft iron that fits their noise.
        let equations = Double(3 * agreement.windows.count)
        var best: (calibration: MagnetometerCalibration, residual: Double, perFreedom: Double)?
        for (hardIronOnly, unknowns) in [(true, 4.0), (false, 13.0)] where equations > unknowns {
            guard let fit = agreement.fit(hardIronOnly: hardIronOnly)?.calibration else { continue }
            // Its symmetric part with unit determinant (the antisymmetric rest is a small turn of
            // the magnetometer's axes, which a calibration does not carry), scaled to the samples.
            let symmetric = (fit.softIron + fit.softIron.transposed) * 0.5
            let determinant = symmetric.determinant
            guard determinant > 0 else { continue }
            let softIron = symmetric * (1 / cbrt(determinant))
            let eigen = SymmetricEigen(softIron)
            guard eigen.smallest > 0, eigen.largest / eigen.smallest <= parameters.maximumAxisRatio else { continue }
            var candidate = MagnetometerCalibration(offset: fit.offset, softIron: softIron, fieldStrength: 0)
            candidate.fieldStrength = points.reduce(0) { $0 + candidate.apply($1).norm } / Double(points.count)
            guard parameters.plausibleFieldStrength.contains(candidate.fieldStrength),
                  let residual = agreement.residual(of: candidate) else { continue }
            let perFreedom = residual * (equations / (equations - unknowns)).squareRoot()
            if best.map({ perFreedom < 0.9 * $0.perFreedom }) ?? true { best = (candidate, residual, perFreedom) }
        }
        guard let (candidate, fitted, _) = best else { return false }
        let adopt = state.calibration.isIdentity
            ? fitted <= parameters.gyroscopeFitRatio * inUse && candidate.offset.norm >= parameters.gyroscopeFitHardIron * candidate.fieldStrength
            : fitted <= inUse
        guard adopt else { return false }
        state.calibration = candidate
        state.accuracy = .low
        state.fitAccuracy = .low
        state.residual = Self.residual(of: candidate, over: points)
        state.deviation = 0
        state.binCentre = candidate.offset
        rebin()
        return true
    }

    /// A low fit's offset replaced by the one that holds the field stillest over the last minute
    /// with its soft iron (``MagnetometerAttitudeAgreement/stillestOffset(for:)``), when that
    /// lies within ``Parameters/attitudeOffsetStep`` of it, rests on at least
    /// ``Parameters/attitudeOffsetEvidence`` seconds of readings, holds the field stiller by
    /// ``Parameters/attitudeOffsetGain`` and the gyroscope's windows agree about as well
    /// (``Parameters/attitudeOffsetWindowTolerance``); whether it moved.
    private mutating func refineOffset() -> Bool {
        refineWindows = agreement.closedWindows
        guard attitudeAgreement.span >= parameters.attitudeOffsetEvidence,
              let stillest = attitudeAgreement.stillestOffset(for: state.calibration) else { return false }
        // A larger disagreement is not a refinement: a field not still in the world (a magnet in
        // the room) or a soft iron the fit got wrong, which the fits themselves must settle.
        guard (stillest - state.calibration.offset).norm <= parameters.attitudeOffsetStep else { return false }
        var candidate = state.calibration
        candidate.offset = stillest
        guard let refined = attitudeAgreement.residual(of: candidate), let inUse = attitudeAgreement.residual(of: state.calibration),
              refined <= parameters.attitudeOffsetGain * inUse,
              let windows = agreement.residual(of: candidate), let windowsInUse = agreement.residual(of: state.calibration),
              windows <= parameters.attitudeOffsetWindowTolerance * windowsInUse else { return false }
        state.calibration = candidate
        return true
    }

    /// The sample for the sphere and ellipsoid fits and the disturbance watch (see the type's
    /// documentation); whether the calibration changed.
    private mutating func consider(_ raw: Vector3, at time: Double) -> Bool {
        // A gap counts as at most 1 s, so one sample after a pause cannot decide alone.
        let dt = state.lastTime.map { min(max(time - $0, 0), 1) } ?? 0
        state.lastTime = time
        let sample = RetainedSample(field: raw, time: time)
        if state.fitAccuracy >= .medium {
            let strength = state.calibration.fieldStrength
            let off = abs(state.calibration.apply(raw).norm - strength) > parameters.deviationTolerance * strength
            state.deviation += ((off ? 1 : 0) - state.deviation) * min(1, dt / parameters.deviationTau)
            // The samples off the fit over the last deviationTau: if the field has changed for
            // good, they are the first of the new one.
            var recentOff = state.recentOff.take() ?? [] // taken out: appending copies nothing
            recentOff.removeFirst(recentOff.firstIndex { time - $0.time <= parameters.deviationTau } ?? recentOff.count)
            if off {
                if recentOff.count == Self.recentOffLimit { recentOff.removeFirst() }
                recentOff.append(sample)
            }
            state.recentOff = recentOff.isEmpty ? nil : recentOff
            if state.deviation > 0.5 {
                restartCollection()
                // The new collection starts with them (and this sample), sorted into bins around
                // their own mean as a new collection does.
                let seeds = off ? recentOff : recentOff + [sample]
                state.binCentre = seeds.reduce(Vector3.zero) { $0 + $1.field } / Double(seeds.count)
                return seeds.reduce(false) { changed, seed in retain(seed) || changed }
            } else if off {
                return false
            }
        }
        return retain(sample)
    }

    /// Returns whether the calibration changed.
    private mutating func retain(_ sample: RetainedSample) -> Bool {
        let d = sample.field - state.binCentre
        guard d.dot(d) >= parameters.minimumSampleDistance * parameters.minimumSampleDistance else { return false }
        let bin = DirectionBins.index(of: d)
        let isNewBin = state.samples[bin] == nil
        state.samples[bin] = sample
        state.samplesSinceFit += 1
        if isNewBin, state.fitAccuracy == .uncalibrated {
            let points = state.samples.compactMap { $0?.field }
            state.binCentre = points.reduce(Vector3.zero, +) / Double(points.count)
        }
        return isNewBin || state.samplesSinceFit >= parameters.refitInterval ? refit() : false
    }

    /// Returns whether the calibration changed.
    private mutating func refit() -> Bool {
        state.samplesSinceFit = 0
        let points = state.samples.compactMap { $0?.field }
        guard points.count >= parameters.lowMinimumBins else { return false }
        let fits = [EllipsoidFit.sphere(points), points.count >= parameters.mediumMinimumBins ? EllipsoidFit.ellipsoid(points) : nil]
        let candidates = fits.compactMap { $0 }
            .filter { parameters.plausibleFieldStrength.contains($0.calibration.fieldStrength) && $0.axisRatio <= parameters.maximumAxisRatio }
            .map { fit in
                let residual = Self.residual(of: fit.calibration, over: points)
                return (fit: fit, residual: residual, level: level(of: fit.calibration, isEllipsoid: fit.isEllipsoid, over: points, residual: residual))
            }
        guard let best = candidates.max(by: { ($0.level, -$0.residual) < ($1.level, -$1.residual) }) else { return false }
        let current = judge(state.calibration, over: points)
        let hardIron = best.fit.calibration.offset.norm / best.fit.calibration.fieldStrength
        let replace = if state.calibration.isIdentity {
            (current.residual > parameters.trustedResidual // infinite when their field strength is implausible
                || hardIron >= parameters.largeHardIron || (hardIron >= parameters.smallHardIron && best.level >= .medium))
                && best.residual <= parameters.replacementResidualRatio * current.residual
        } else if state.fitAccuracy > .uncalibrated {
            (best.level > state.fitAccuracy || (best.level == state.fitAccuracy && best.residual < current.residual)) && gyroscopeAllows(best.fit.calibration)
        } else {
            true
        }
        // A calibration that stays is rated by its own judgement: the readings as they come, and a
        // gyroscope's fit that holds the field stiller than the sphere or ellipsoid fit does.
        let chosen = replace ? (calibration: best.fit.calibration, residual: best.residual, level: best.level) : current
        // Refitting never lowers the accuracy.
        guard chosen.level > .uncalibrated, chosen.level >= state.fitAccuracy else { return false }
        // Re-sorting the bins empties some (two samples meet in one), whose refilling triggers
        // refits: do it only when the level rises, i.e. the offset has really improved.
        let rebinning = chosen.level > state.fitAccuracy
        let changed = chosen.calibration.offset != state.calibration.offset || chosen.calibration.softIron != state.calibration.softIron
        state.calibration = chosen.calibration
        state.accuracy = chosen.level
        state.fitAccuracy = chosen.level
        state.residual = chosen.residual
        // The samples off the calibration in use are counted afresh only when it changed.
        if changed { state.deviation = 0 }
        if rebinning {
            state.binCentre = chosen.calibration.offset
            rebin()
        }
        return changed
    }

    /// Whether the gyroscope's evidence lets `candidate` replace the fitted calibration in use:
    /// it must hold the field at least as still (``MagnetometerAttitudeAgreement``); without
    /// evidence it may.
    private func gyroscopeAllows(_ candidate: MagnetometerCalibration) -> Bool {
        guard agreement.turning >= parameters.gyroscopeMinimumTurning,
              let fitted = attitudeAgreement.residual(of: candidate), let inUse = attitudeAgreement.residual(of: state.calibration) else { return true }
        return fitted <= inUse
    }

    /// The calibration in use, judged on `points` like a fit: with the field strength that suits
    /// it best there (the mean calibrated magnitude), its residual and level (an infinite
    /// residual when that field strength is implausible).
    private func judge(_ calibration: MagnetometerCalibration, over points: [Vector3])
        -> (calibration: MagnetometerCalibration, residual: Double, level: MagneticFieldCalibrationAccuracy) {
        var judged = calibration
        judged.fieldStrength = points.reduce(0) { $0 + calibration.apply($1).norm } / Double(points.count)
        guard parameters.plausibleFieldStrength.contains(judged.fieldStrength) else { return (calibration, .infinity, .uncalibrated) }
        let residual = Self.residual(of: judged, over: points)
        return (judged, residual, level(of: judged, isEllipsoid: true, over: points, residual: residual))
    }

    /// A calibration's level on `points`; only a full model (an ellipsoid, or the calibration in
    /// use) can rate above low.
    private func level(of calibration: MagnetometerCalibration, isEllipsoid: Bool, over points: [Vector3], residual: Double) -> MagneticFieldCalibrationAccuracy {
        let coverage = coverage(of: points, around: calibration.offset)
        if isEllipsoid, coverage >= parameters.highMinimumBins, residual <= parameters.highMaximumResidual,
           parameters.highFieldStrength.contains(calibration.fieldStrength) { return .high }
        if isEllipsoid, coverage >= parameters.mediumMinimumBins, residual <= parameters.mediumMaximumResidual { return .medium }
        if coverage >= parameters.lowMinimumBins, residual <= parameters.lowMaximumResidual { return .low }
        return .uncalibrated
    }

    /// Filled bins if the points were binned around `centre`.
    private func coverage(of points: [Vector3], around centre: Vector3) -> Int {
        var filled = [Bool](repeating: false, count: DirectionBins.count)
        for point in points {
            let d = point - centre
            if d.dot(d) >= parameters.minimumSampleDistance * parameters.minimumSampleDistance {
                filled[DirectionBins.index(of: d)] = true
            }
        }
        return filled.count { $0 }
    }

    /// Re-sorts the retained samples around the new centre; where two meet, the newer stays.
    private mutating func rebin() {
        let old = state.samples
        state.samples = [RetainedSample?](repeating: nil, count: DirectionBins.count)
        for case let sample? in old {
            let d = sample.field - state.binCentre
            guard d.dot(d) >= parameters.minimumSampleDistance * parameters.minimumSampleDistance else { continue }
            let bin = DirectionBins.index(of: d)
            if let kept = state.samples[bin], kept.time > sample.time { continue }
            state.samples[bin] = sample
        }
    }

    private mutating func restartCollection() {
        agreement.reset()
        attitudeAgreement.reset()
        (gyroscopeFitWindows, lagFitWindows, refineWindows) = (0, 0, 0)
        state.samples = [RetainedSample?](repeating: nil, count: DirectionBins.count)
        state.recentOff = nil
        state.fitAccuracy = .uncalibrated
        state.accuracy = min(state.accuracy, .low)
        state.deviation = 0
        state.samplesSinceFit = 0
    }

    /// RMS of (|calibrated| − R)/R over the points.
    private static func residual(of calibration: MagnetometerCalibration, over points: [Vector3]) -> Double {
        let r = calibration.fieldStrength
        let sum = points.reduce(0) { sum, point in
            let e = (calibration.apply(point).norm - r) / r
            return sum + e * e
        }
        return (sum / Double(points.count)).squareRoot()
    }
}
