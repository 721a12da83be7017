import MotionCore

/// A hard- and soft-iron distortion added to a recording's magnetometer in memory, as an
/// uncalibrated laptop or board magnetometer would read the same motion: raw = S·m + h. The
/// recordings stay as they are on disk (nothing derived from them is committed).
struct MagnetometerDistortion {
    /// Hard iron, device frame, µT.
    var hardIron: Vector3
    /// Soft iron, symmetric.
    var softIron: Matrix3

    /// 10 % soft iron: eigenvalues 0.90, 1.00, 1.10 along axes turned away from the device's
    /// (Q · diag(1.1, 1.0, 0.9) · Qᵀ with Q = Rz(30°)·Ry(−20°)·Rx(45°), rounded to 3 decimals).
    static let softIron = Matrix3(rowMajor: [1.055, -0.011, 0.069, -0.011, 0.958, 0.052, 0.069, 0.052, 0.988])

    /// Hard-iron magnitudes of the variants, µT.
    static let hardIronMagnitudes = [10.0, 25.0, 50.0]

    /// The variant of `magnitude` µT for the file at `fileIndex`: a direction drawn from a fixed
    /// seed, a different one for every file and magnitude, with ``softIron``.
    static func variant(magnitude: Double, fileIndex: Int) -> MagnetometerDistortion {
        let magnitudeIndex = hardIronMagnitudes.firstIndex(of: magnitude) ?? hardIronMagnitudes.count
        var random = SeededRandom(seed: 31 &+ UInt64(fileIndex) &* 16 &+ UInt64(magnitudeIndex))
        var direction = Vector3.zero
        while direction.norm < 1e-6 { direction = random.gaussianVector(sigma: 1) }
        return MagnetometerDistortion(hardIron: direction / direction.norm * magnitude, softIron: softIron)
    }

    /// The records with their magnetometer readings distorted.
    func apply(to records: [TraceRecord]) -> [TraceRecord] {
        records.map { record in
            var distorted = record
            distorted.magnetometer = record.magnetometer.map { softIron * $0 + hardIron }
            return distorted
        }
    }
}
