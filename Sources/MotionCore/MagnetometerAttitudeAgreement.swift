import Glibc

/// How still a magnetometer calibration holds the field in the frame the gyroscope's attitude
/// turns into: the long-horizon counterpart of ``MagnetometerGyroscopeAgreement``.
///
/// In a field constant in the world, a right calibration m = W(r − c) of the raw readings r
/// makes R m the same vector h for every reading, R the device's attitude (device → a frame fixed
/// in the world; the fusion's 6D attitude, whose heading drifts only slowly). The windows of
/// ``MagnetometerGyroscopeAgreement`` compare the field's change with the rotation over 0.125 s,
/// where a slow turn moves the field by little more than its noise; here every reading of the
/// last minute is compared with every other one, so a turn of 90° over ten seconds counts as 90°.
/// On BROAD's slow-rotation recording with a 25 µT hard iron, a sphere fit 6 µT off the offset
/// agrees with the windows as well as the gyroscope's own fit (0.6 µT off) does; here it leaves
/// visibly more.
///
/// ∑|R W(r − c) − h|² with the best h (the mean of R W(r − c)) is ∑|W(r − c)|² − n|h|², and both
/// terms follow from sums over the readings: n, ∑r, ∑r rᵀ, ∑R and ∑R_ab r_l. They are kept per
/// block of ``blockLength`` seconds for the last ``blockLimit`` blocks.
///
/// Pure and deterministic: time comes from the sample timestamps (s).
public struct MagnetometerAttitudeAgreement: Sendable {
    /// One block's sums.
    struct Block: Sendable {
        var count = 0.0
        /// ∑r, µT.
        var field = Vector3.zero
        /// ∑r rᵀ.
        var fieldField = Matrix3.zero
        /// ∑R.
        var attitude = Matrix3.zero
        /// ∑R_ab r_l at (a·3 + b)·3 + l.
        var attitudeField = InlineArray<27, Double>(repeating: 0)

        static func + (x: Block, y: Block) -> Block {
            var sum = x
            sum.count += y.count
            sum.field = sum.field + y.field
            sum.fieldField = sum.fieldField + y.fieldField
            sum.attitude = sum.attitude + y.attitude
            for index in 0..<27 { sum.attitudeField[index] += y.attitudeField[index] }
            return sum
        }
    }

    /// Seconds per block.
    public static let blockLength = 2.0
    /// Blocks kept: the last minute.
    public static let blockLimit = 30

    private var blocks = BoundedHistory<Block>(capacity: blockLimit)
    private var current = Block()
    private var blockStart: Double?

    public init() {}

    /// A raw reading (device frame, µT) at `time` (s), with the attitude at the moment it
    /// describes (device → the world-fixed frame).
    public mutating func update(field r: Vector3, attitude: Quaternion, at time: Double) {
        guard r.isFinite, time.isFinite else { return }
        if let start = blockStart, time - start >= Self.blockLength || time < start {
            blocks.append(current)
            current = Block()
            blockStart = time
        } else if blockStart == nil {
            blockStart = time
        }
        let rotation = attitude.matrix
        current.count += 1
        current.field = current.field + r
        current.fieldField = current.fieldField + Matrix3(rows: r * r.x, r * r.y, r * r.z)
        current.attitude = current.attitude + rotation
        for a in 0..<3 {
            for b in 0..<3 {
                let element = rotation[a, b]
                for l in 0..<3 { current.attitudeField[(a * 3 + b) * 3 + l] += element * r[l] }
            }
        }
    }

    /// Seconds of readings held (whole blocks), up to a minute.
    public var span: Double { Double(blocks.count) * Self.blockLength }

    /// Forgets every reading (the attitude's frame restarted, or the device's own field changed).
    public mutating func reset() {
        blocks.removeAll()
        current = Block()
        blockStart = nil
    }

    /// The offset that, with `calibration`'s soft iron, holds the field stillest: the c of least
    /// ∑|R W(r − c) − h|² = ∑|W(r − c)|² − |∑R W(r − c)|²/n, quadratic in c, so the solution of
    /// Wᵀ(n I − QᵀQ/n)W c = WᵀW ∑r − WᵀQᵀP/n with Q = ∑R and P = ∑R W r. Without turning
    /// (every R alike, QᵀQ = n²I) it is undetermined: nil, as for a singular system.
    public func stillestOffset(for calibration: MagnetometerCalibration) -> Vector3? {
        guard let (sums, w, p) = terms(of: calibration) else { return nil }
        let n = sums.count, q = sums.attitude
        let inner = Matrix3(rows: Vector3(n, 0, 0), Vector3(0, n, 0), Vector3(0, 0, n)) - q.transposed * q * (1 / n)
        let m = w.transposed * inner * w
        let rhs = w.transposed * (w * sums.field) - w.transposed * (q.transposed * p) * (1 / n)
        guard let c = LinearSystem(size: 3, matrix: m.rowMajor).solve(rhs.components) else { return nil }
        return Vector3(c[0], c[1], c[2])
    }

    /// What `calibration` leaves of a still field: the RMS per component of R W(r − c) − h over
    /// |h|, with W scaled to unit determinant (so the scale of a calibration does not count); nil
    /// without readings, or for a W that is not a proper calibration.
    public func residual(of calibration: MagnetometerCalibration) -> Double? {
        guard let (sums, w, p) = terms(of: calibration) else { return nil }
        let c = calibration.offset
        // ∑|W(r − c)|² = tr(Wᵀ W ∑(r − c)(r − c)ᵀ).
        let centred = sums.fieldField - Matrix3(rows: sums.field * c.x, sums.field * c.y, sums.field * c.z)
            - Matrix3(rows: c * sums.field.x, c * sums.field.y, c * sums.field.z) + Matrix3(rows: c * c.x, c * c.y, c * c.z) * sums.count
        let gram = w.transposed * w
        var power = 0.0
        for i in 0..<3 { for j in 0..<3 { power += gram[i, j] * centred[j, i] } }
        // ∑R W(r − c) = ∑R W r − (∑R) W c.
        let still = p - sums.attitude * (w * c)
        let h = still / sums.count
        guard h.norm > 0 else { return nil }
        return (max(power - sums.count * h.dot(h), 0) / (3 * sums.count)).squareRoot() / h.norm
    }

    /// The sums of the last minute, `calibration`'s soft iron scaled to unit determinant, and
    /// ∑R W r (entry a = ∑_{b,l} W_bl ∑R_ab r_l); nil without readings or for a W that is not
    /// a proper calibration.
    private func terms(of calibration: MagnetometerCalibration) -> (sums: Block, w: Matrix3, p: Vector3)? {
        let sums = blocks.reduce(current, +)
        let determinant = calibration.softIron.determinant
        guard sums.count >= 2, determinant > 0 else { return nil }
        let w = calibration.softIron * (1 / cbrt(determinant))
        var p = Vector3.zero
        for a in 0..<3 {
            var sum = 0.0
            for b in 0..<3 { for l in 0..<3 { sum += w[b, l] * sums.attitudeField[(a * 3 + b) * 3 + l] } }
            p[a] = sum
        }
        return (sums, w, p)
    }
}
