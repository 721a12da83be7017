import Glibc

/// Checks that the gyroscope's axes agree with the accelerometer's, from ordinary motion.
///
/// The two sensors get their axes from different mount matrices and drivers, and a flipped or
/// swapped axis makes every attitude silently wrong. Physics gives a test: a fixed direction
/// seen from a turning device changes as `dg/dt = g × ω`, so the gravity direction measured by
/// the accelerometer must follow the gyroscope's rotation. The check fits the matrix `M` in
/// `Δg ≈ Σ g × (M·ω) Δt` over short windows of motion (normal equations, 9 unknowns), with the
/// standard error of each entry; once every entry is known well enough it rounds `M` to the
/// nearest signed axis permutation. The identity means consistent; anything else is the
/// correction that makes the gyroscope agree (`ω_corrected = correction · ω`), which may flip
/// the handedness (determinant −1). Windows with linear acceleration (|a| far from 1 G) or too
/// little or too much turning are skipped. Conventions as everywhere: accelerometer G with the
/// gravity sign, gyroscope rad/s, device frame, times in seconds from sample timestamps.
public struct AxisSelfCheck: Sendable {
    /// When a window counts and when the fit is trusted. Defaults work at 20–200 Hz.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Length of one comparison window, s.
        public var windowDuration = 0.2
        /// A window must turn at least this much (degrees) to say anything…
        public var minimumWindowRotation = 4.0
        /// …and at most this much (the linearisation of a window holds for modest turns).
        public var maximumWindowRotation = 60.0
        /// Largest deviation of |a| from 1 G inside a window (linear acceleration), G.
        public var accelerationTolerance = 0.15
        /// Windows needed before a verdict.
        public var minimumWindows = 30
        /// Largest standard error of any entry of the fitted matrix before a verdict.
        public var maximumStandardError = 0.08
        /// Largest distance (Frobenius) between the fit and the nearest signed permutation for
        /// a verdict of consistent or inconsistent; beyond it the fit is reported implausible
        /// (a scale error, a wrong sensor pairing, or a non-axis-aligned mounting).
        public var maximumMismatch = 0.35

        public init() {}
    }

    /// What the check concluded.
    public enum Verdict: Sendable, Hashable, Codable {
        /// Not enough informative motion yet.
        case undetermined
        /// The gyroscope's axes agree with the accelerometer's.
        case consistent
        /// They disagree by an axis permutation or sign flip; `correction` fixes the gyroscope.
        case inconsistent(correction: Matrix3)
        /// The fit is not close to any axis permutation.
        case implausible(estimate: Matrix3)
    }

    public var parameters: Parameters
    public private(set) var verdict = Verdict.undetermined
    /// The latest fitted matrix (gyroscope → accelerometer axes), nil before the first fit.
    public private(set) var estimate: Matrix3?
    /// Informative windows used so far.
    public private(set) var windows = 0

    // Normal equations of the 9 unknowns (row-major entries of M), and the sum of |Δg|².
    private var normal = [Double](repeating: 0, count: 81)
    private var rightHandSide = [Double](repeating: 0, count: 9)
    private var sumSquares = 0.0
    // The open window: its start direction, Σ g ωᵀ Δt (the Jacobian follows from it, see
    // `accumulate`; inline, as every gyroscope sample adds to it) and bookkeeping.
    private var windowStart: Double?
    private var startDirection = Vector3.zero
    private var gravityRate = Matrix3.zero
    private var turned = 0.0
    private var windowValid = true
    private var direction: Vector3?
    private var lastGyroscope: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// True once a verdict other than undetermined is reached; the check then stops learning.
    public var isDecided: Bool { verdict != .undetermined }

    /// Starts over (e.g. after a correction was applied to the gyroscope).
    public mutating func reset() {
        self = AxisSelfCheck(parameters: parameters)
    }

    /// Adds a gyroscope sample (rad/s) to the open window.
    public mutating func update(gyroscope rate: Vector3, at time: Double) {
        defer { lastGyroscope = time }
        guard !isDecided, rate.isFinite, time.isFinite, let g = direction, windowStart != nil,
              let last = lastGyroscope else { return }
        let dt = time - last
        guard dt > 0, dt < parameters.windowDuration else {
            windowValid = false
            return
        }
        let h = g * dt
        gravityRate = gravityRate + Matrix3(rows: rate * h.x, rate * h.y, rate * h.z)
        turned += rate.norm * dt
    }

    /// Updates the gravity direction from an accelerometer sample (G) and closes the window
    /// when it is long enough.
    public mutating func update(accelerometer acceleration: Vector3, at time: Double) {
        guard !isDecided, acceleration.isFinite, time.isFinite, acceleration.norm > 1e-3 else { return }
        let g = acceleration / acceleration.norm
        direction = g
        if abs(acceleration.norm - 1) > parameters.accelerationTolerance { windowValid = false }
        guard let start = windowStart else {
            openWindow(at: time, direction: g)
            return
        }
        guard time - start >= parameters.windowDuration else { return }
        let degrees = turned * 180 / .pi
        if windowValid, degrees >= parameters.minimumWindowRotation, degrees <= parameters.maximumWindowRotation {
            accumulate(change: g - startDirection)
        }
        openWindow(at: time, direction: g)
    }

    private mutating func openWindow(at time: Double, direction g: Vector3) {
        windowStart = time
        startDirection = g
        gravityRate = .zero
        turned = 0
        windowValid = true
    }

    private mutating func accumulate(change: Vector3) {
        // ∂(g × M·ω)/∂M_rc = ω_c (g × e_r): integrated over the window, column 3r + c of the
        // Jacobian is (Σ g ω_c Δt) × e_r, i.e. column c of Σ g ωᵀ Δt crossed with e_r.
        let columns = gravityRate.transposed
        let jacobian = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)].flatMap { e in
            [columns.row0.cross(e), columns.row1.cross(e), columns.row2.cross(e)]
        }
        for i in 0..<9 {
            rightHandSide[i] += jacobian[i].dot(change)
            for j in 0..<9 { normal[i * 9 + j] += jacobian[i].dot(jacobian[j]) }
        }
        sumSquares += change.dot(change)
        windows += 1
        if windows >= parameters.minimumWindows { judge() }
    }

    /// Fits M, and decides once every entry's standard error is small enough.
    private mutating func judge() {
        let system = LinearSystem(size: 9, matrix: normal)
        guard let m = system.solve(rightHandSide), let variances = system.inverseDiagonal() else { return }
        let fit = Matrix3(rowMajor: m)
        estimate = fit
        // Residual sum of squares = Σ|Δ|² − 2 mᵀb + mᵀ A m; 3 equations per window, 9 unknowns.
        var quadratic = 0.0
        for i in 0..<9 { for j in 0..<9 { quadratic += m[i] * normal[i * 9 + j] * m[j] } }
        let residual = max(0, sumSquares - 2 * zip(m, rightHandSide).reduce(0) { $0 + $1.0 * $1.1 } + quadratic)
        let noise = residual / Double(max(1, 3 * windows - 9))
        let worst = variances.map { ($0 * noise).squareRoot() }.max() ?? .infinity
        guard worst.isFinite, worst <= parameters.maximumStandardError else { return }
        let nearest = Self.nearestSignedPermutation(to: fit)
        let mismatch = zip(fit.rowMajor, nearest.rowMajor).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
        if mismatch > parameters.maximumMismatch {
            verdict = .implausible(estimate: fit)
        } else {
            verdict = nearest == .identity ? .consistent : .inconsistent(correction: nearest)
        }
    }

    /// The signed permutation matrix closest to `m` (largest Σ |m[r][p(r)]| over permutations p,
    /// each entry taking the sign of `m`).
    static func nearestSignedPermutation(to m: Matrix3) -> Matrix3 {
        let permutations = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let best = permutations.max { a, b in
            (0..<3).reduce(0) { $0 + abs(m[$1, a[$1]]) } < (0..<3).reduce(0) { $0 + abs(m[$1, b[$1]]) }
        }!
        var values = [Double](repeating: 0, count: 9)
        for r in 0..<3 { values[r * 3 + best[r]] = m[r, best[r]] < 0 ? -1 : 1 }
        return Matrix3(rowMajor: values)
    }
}

extension AxisSelfCheck.Verdict: CustomStringConvertible {
    /// One line for logs and `motionctl status`, naming the correction as a mount matrix.
    public var description: String {
        switch self {
        case .undetermined:
            return "undetermined (needs more turning motion)"
        case .consistent:
            return "consistent: gyroscope and accelerometer axes agree"
        case .inconsistent(let correction):
            let handedness = correction.determinant < 0 ? " (handedness differs)" : ""
            return "inconsistent\(handedness): multiply the gyroscope by the mount matrix \"\(Self.text(correction))\" to agree with the accelerometer"
        case .implausible(let estimate):
            return "implausible: the gyroscope does not explain the accelerometer's turning (fit \"\(Self.text(estimate))\"); check the sensor pairing and scales"
        }
    }

    /// The matrix's text form, to two decimals (`+ 0` turns −0 into 0).
    private static func text(_ m: Matrix3) -> String {
        Matrix3(rowMajor: m.rowMajor.map { ($0 * 100).rounded() / 100 + 0 }).text
    }
}
