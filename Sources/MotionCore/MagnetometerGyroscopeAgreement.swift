/// How well a magnetometer calibration agrees with the gyroscope: the evidence that tells a
/// calibration that is right from one that only looks right to the magnetometer.
///
/// In a field constant in the world, the calibrated field m seen by a turning device obeys
/// ṁ = −ω × m (ω the rotation rate, device frame). Over a window of ``windowLength`` seconds that
/// is Δm + ∫ω × m dt = 0. A calibration m = W(r − c) of the raw readings r enters linearly, so each
/// window keeps only raw sums — the change of r, ∫ω dt, ∫ω rᵀ dt — and any calibration is judged
/// on the last ``windowLimit`` windows afterwards: the RMS of what is left of Δm + ∫ω × m dt, µT.
/// A wrong hard iron b leaves (∫ω dt) × Wb in every window that turns, so the evidence grows with
/// the turning, not with how much of the sphere the readings cover.
///
/// The magnetometer usually lags the gyroscope (BROAD's by 12–17 ms, a HID hub's or an I2C
/// chip's by its own filter): a lag τ leaves τ ∫ω̇ × m dt in each window, as large as a hard
/// iron of a few µT in fast turns. So each judgement also fits the τ in 0…``largestLag`` that
/// suits the calibration best, from ∫ω̇ rᵀ dt kept alongside.
///
/// Pure and deterministic: time comes from the sample timestamps (s).
public struct MagnetometerGyroscopeAgreement: Sendable {
    /// One window's raw sums.
    struct Window: Sendable {
        /// r at the window's end minus r at its start, µT.
        var fieldChange = Vector3.zero
        /// ∫ω dt, rad.
        var turn = Vector3.zero
        /// ω at the end minus ω at the start, rad/s.
        var rateChange = Vector3.zero
        /// ∫ω rᵀ dt, rows per ω component.
        var rateField = Matrix3.zero
        /// ∫ω̇ rᵀ dt.
        var rateChangeField = Matrix3.zero
    }

    /// Seconds per window.
    public static let windowLength = 0.125
    /// Windows kept: the last 60 s.
    public static let windowLimit = 480
    /// The largest magnetometer lag behind the gyroscope fitted, s.
    public static let largestLag = MotionEngine.SensorLags.believable.upperBound
    /// A window whose readings are further apart than this holds a gap and is dropped, s.
    static let longestStep = 0.1

    private(set) var windows = BoundedHistory<Window>(capacity: windowLimit)
    /// Windows closed since the start or the last reset (those dropped from the ring included).
    public private(set) var closedWindows = 0
    private var current = Window()
    private var windowStart: (time: Double, field: Vector3, rate: Vector3)?
    private(set) var rate: Vector3?
    /// The latest reading, with the rate held when it came.
    private var lastField: (time: Double, field: Vector3, rate: Vector3)?

    public init() {}

    /// The gyroscope's latest rate (device frame, rad/s), held until the next one.
    public mutating func update(rate: Vector3) {
        guard rate.isFinite else { return }
        if let previous = self.rate, let last = lastField {
            current.rateChangeField = current.rateChangeField + Self.outer(rate - previous, last.field)
        }
        self.rate = rate
    }

    /// A raw magnetometer reading (device frame, µT) at `time` (s).
    public mutating func update(field: Vector3, at time: Double) {
        guard field.isFinite, time.isFinite, let rate else { return }
        defer { lastField = (time, field, rate) }
        guard let last = lastField, time > last.time, time - last.time <= Self.longestStep, let start = windowStart else {
            current = Window()
            windowStart = (time, field, rate)
            return
        }
        // The trapezoid rule over the step.
        let dt = time - last.time
        current.turn = current.turn + (rate + last.rate) * (dt / 2)
        current.rateField = current.rateField + (Self.outer(rate, field) + Self.outer(last.rate, last.field)) * (dt / 2)
        guard time - start.time >= Self.windowLength else { return }
        current.fieldChange = field - start.field
        current.rateChange = rate - start.rate
        closedWindows += 1
        windows.append(current)
        current = Window()
        windowStart = (time, field, rate)
    }

    /// Forgets every window (the device's own field changed: they describe the old one).
    public mutating func reset() {
        windows.removeAll()
        closedWindows = 0
        current = Window()
        windowStart = nil
    }

    /// How much turning the evidence holds: ∑|∫ω dt|² over the windows divided by
    /// ``windowLength``, i.e. about ∫|ω|² dt over the time they span, rad²/s (so the window
    /// length does not change it).
    public var turning: Double { windows.reduce(0) { $0 + $1.turn.dot($1.turn) } / Self.windowLength }

    /// What `calibration` leaves of Δm + ∫ω × m dt, RMS per window component, µT, with the lag
    /// that suits it best; nil without windows.
    public func residual(of calibration: MagnetometerCalibration) -> Double? {
        guard !windows.isEmpty else { return nil }
        let (aa, ab, bb) = lagSums(of: calibration)
        let lag = Self.lag(ab, bb)
        let sum = aa - 2 * lag * ab + lag * lag * bb
        return (max(sum, 0) / Double(3 * windows.count)).squareRoot()
    }

    /// With a the window's Δm + ∫ω × m dt and b its lag term ∫ω̇ × m dt under `calibration`
    /// (what is left with a lag τ is a − τb): ∑a·a, ∑a·b and ∑b·b over the windows.
    private func lagSums(of calibration: MagnetometerCalibration) -> (aa: Double, ab: Double, bb: Double) {
        let w = calibration.softIron
        let offset = w * calibration.offset
        var aa = 0.0, ab = 0.0, bb = 0.0
        for window in windows {
            let a = w * window.fieldChange + Self.cross(window.rateField, w) - window.turn.cross(offset)
            let b = Self.cross(window.rateChangeField, w) - window.rateChange.cross(offset)
            aa += a.dot(a); ab += a.dot(b); bb += b.dot(b)
        }
        return (aa, ab, bb)
    }

    /// The τ in 0…``largestLag`` minimising ∑|a − τb|².
    private static func lag(_ ab: Double, _ bb: Double) -> Double {
        bb > 0 ? min(max(ab / bb, 0), largestLag) : 0
    }

    /// The calibration that agrees best with the gyroscope over the windows: W and W·c of
    /// m = W(r − c) by linear least squares (W = I + E with trace E = 0: the windows fix
    /// everything but the scale), alternating with the lag; nil without enough evidence.
    public func fit(hardIronOnly: Bool = false) -> (calibration: MagnetometerCalibration, lag: Double)? {
        guard windows.count >= 4 else { return nil }
        var lag = 0.0
        var result: MagnetometerCalibration?
        for _ in 0..<3 {
            guard let calibration = hardIronOnly ? hardIronFit(lag: lag) : fullFit(lag: lag) else { return nil }
            result = calibration
            lag = self.lag(of: calibration)
        }
        return result.map { ($0, lag) }
    }

    /// W = I: each window says turn × c = Δr + ∫ω × r dt (with the lag's terms), i.e.
    /// [turn]ₓ c = b, whose normal equations are ∑(|turn|² I − turn turnᵀ) c = ∑ b × turn.
    private func hardIronFit(lag: Double) -> MagnetometerCalibration? {
        var normal = [Double](repeating: 0, count: 9)
        var right = Vector3.zero
        for window in windows {
            let turn = window.turn - window.rateChange * lag
            let b = window.fieldChange + Self.cross(window.rateField - window.rateChangeField * lag, .identity)
            let squared = turn.dot(turn)
            for i in 0..<3 {
                for j in 0..<3 { normal[i * 3 + j] += (i == j ? squared : 0) - turn[i] * turn[j] }
            }
            right = right + b.cross(turn)
        }
        guard let c = LinearSystem(size: 3, matrix: normal).solve([right.x, right.y, right.z]) else { return nil }
        return MagnetometerCalibration(offset: Vector3(c[0], c[1], c[2]), softIron: .identity, fieldStrength: 0)
    }

    /// W = I + E and c' = W c, 12 unknowns: each window gives three rows
    /// E Δr + X(E, P) − turn × c' = −(Δr + X(I, P)), X(E, P)_i = ∑ ε_ijk E_kl P_jl; with trace E = 0.
    private func fullFit(lag: Double) -> MagnetometerCalibration? {
        var ata = InlineArray<144, Double>(repeating: 0), atb = InlineArray<12, Double>(repeating: 0)
        // (j, k) pairs of the two nonzero ε_ijk per row i, the first positive.
        let pairs: InlineArray<3, (Int, Int, Int, Int)> = [(1, 2, 2, 1), (2, 0, 0, 2), (0, 1, 1, 0)]
        for window in windows {
            let p = window.rateField - window.rateChangeField * lag
            let turn = window.turn - window.rateChange * lag
            let base = window.fieldChange + Self.cross(p, .identity)
            let skew: InlineArray<9, Double> = [0, -turn.z, turn.y, turn.z, 0, -turn.x, -turn.y, turn.x, 0]
            for i in 0..<3 {
                var row = InlineArray<12, Double>(repeating: 0)
                for l in 0..<3 { row[i * 3 + l] += window.fieldChange[l] }
                let (j1, k1, j2, k2) = pairs[i]
                let (r1, r2) = (Self.row(p, j1), Self.row(p, j2))
                for l in 0..<3 {
                    row[k1 * 3 + l] += r1[l]
                    row[k2 * 3 + l] -= r2[l]
                }
                for m in 0..<3 { row[9 + m] = -skew[i * 3 + m] }
                let b = -base[i]
                for a in 0..<12 where row[a] != 0 {
                    for c in 0..<12 { ata[a * 12 + c] += row[a] * row[c] }
                    atb[a] += row[a] * b
                }
            }
        }
        // trace E = 0, weighted well above the windows' own scale.
        let weight = (ata[0] + ata[4 * 12 + 4] + ata[8 * 12 + 8]).squareRoot() * 10
        for a in [0, 4, 8] { for c in [0, 4, 8] { ata[a * 12 + c] += weight * weight } }
        var matrix = [Double](repeating: 0, count: 144), right = [Double](repeating: 0, count: 12)
        for a in 0..<144 { matrix[a] = ata[a] }
        for a in 0..<12 { right[a] = atb[a] }
        guard let x = LinearSystem(size: 12, matrix: matrix).solve(right) else { return nil }
        let w = Matrix3(rowMajor: [1 + x[0], x[1], x[2], x[3], 1 + x[4], x[5], x[6], x[7], 1 + x[8]])
        let det = w.determinant
        guard abs(det) > 1e-9 else { return nil }
        // The inverse's columns are the rows' cross products over the determinant.
        let inverse = Matrix3(rows: w.row1.cross(w.row2), w.row2.cross(w.row0), w.row0.cross(w.row1)).transposed * (1 / det)
        return MagnetometerCalibration(offset: inverse * Vector3(x[9], x[10], x[11]), softIron: w, fieldStrength: 0)
    }

    private static func row(_ m: Matrix3, _ index: Int) -> Vector3 {
        index == 0 ? m.row0 : index == 1 ? m.row1 : m.row2
    }

    /// The lag in 0…``largestLag`` that suits `calibration` best (0 without windows), s.
    public func lag(of calibration: MagnetometerCalibration) -> Double {
        let (_, ab, bb) = lagSums(of: calibration)
        return Self.lag(ab, bb)
    }

    /// ∫ω × (W r) dt from ∫ω rᵀ dt (rows per ω component): component i is ∑ ε_ijk (W Pᵀ)_kj.
    private static func cross(_ p: Matrix3, _ w: Matrix3) -> Vector3 {
        let m = w * p.transposed
        return Vector3(m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1])
    }

    private static func outer(_ a: Vector3, _ b: Vector3) -> Matrix3 {
        Matrix3(rows: b * a.x, b * a.y, b * a.z)
    }
}
