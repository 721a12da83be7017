import MotionCore

/// Turns samples received from the daemon into a trace file (README "Trace files"), the format
/// `motiond --source replay:FILE`, `motionctl fuse`, `analyze` and `plot` read.
///
/// Units and signs are converted back from Core Motion's to the trace's: acceleration from G
/// with the gravity-vector sign to m/s² with the inertial-navigation sign (× −9.80665, the
/// inverse of ``TraceReader``'s conversion: +9.81 m/s² on the up axis at rest), rotation rate
/// in rad/s and magnetic field in µT unchanged.
///
/// Rows: one per distinct sample time at the trace's resolution (a microsecond), in time
/// order. Samples of different sensors within the same microsecond (sensors sampled together,
/// like the simulated IMU's, or sub-microsecond apart) share a row; a
/// sensor with no sample at a row's time has `nan` in its columns, which readers skip for that
/// row only, so a replay delivers every sensor's samples at exactly their own times and
/// nothing else (a recording that stops between the samples of one time has a partial last
/// row). The trace starts when every recorded sensor has begun: the daemon answers a client's
/// subscriptions one after the other, so the first sensor's earliest samples would otherwise
/// make rows without the others (a fresh-clone `make check` once had a recording whose
/// magnetometer began late). `t` is seconds since the first sample kept (microseconds); the
/// columns are those of the sensors that delivered samples, in the order `gyr`, `acc`, `mag`,
/// `base_acc`, `base_gyr`.
struct TraceWriter {
    private var samples: [Sample] = []

    /// Sensor kinds in column order, with their column prefixes (light and proximity are not
    /// part of the trace format).
    private static let columns: [(kind: SensorKind, prefix: String)] = [
        (.gyroscope, "gyr"), (.accelerometer, "acc"), (.magnetometer, "mag"), (.baseAccelerometer, "base_acc"),
        (.baseGyroscope, "base_gyr"),
    ]

    /// Adds a sample; samples of one sensor must come in time order, sensors may interleave.
    mutating func append(_ sample: Sample) {
        samples.append(sample)
    }

    /// Samples per sensor in the trace so far.
    var counts: [SensorKind: Int] {
        kept.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// The samples from the time every sensor has begun (each sensor's samples come in time
    /// order: its first is its start).
    private var kept: [Sample] {
        let begun = Self.columns.compactMap { column in samples.first { $0.kind == column.kind }?.timestamp }.max()
        return samples.filter { sample in begun.map { sample.timestamp >= $0 - 0.5e-6 } ?? true }
    }

    /// The trace: its CSV text and how many rows it has (none without samples).
    func csv() -> (text: String, rows: Int) {
        let kept = kept
        let present = Set(kept.map(\.kind))
        let kinds = Self.columns.map(\.kind).filter(present.contains)
        guard let start = kept.map(\.timestamp).min() else { return ("", 0) }
        // Sensors arrive as separate messages; a stable sort restores one time line.
        let ordered = kept.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        // Times as written: microseconds since the first sample. Two rows never print the same t.
        var rows: [(microseconds: Double, values: [SensorKind: Vector3])] = []
        for sample in ordered {
            let microseconds = ((sample.timestamp - start) * 1e6).rounded()
            if let last = rows.last, last.microseconds == microseconds, last.values[sample.kind] == nil {
                rows[rows.count - 1].values[sample.kind] = sample.vector
            } else {
                rows.append((microseconds, [sample.kind: sample.vector]))
            }
        }
        var text = (["t"] + kinds.flatMap { kind in ["x", "y", "z"].map { "\(Self.prefix(kind))_\($0)" } }).joined(separator: ",") + "\n"
        for row in rows {
            var cells = [DecimalText.fixed(row.microseconds / 1e6, decimals: 6)]
            for kind in kinds {
                if let v = row.values[kind] {
                    let trace = v * Self.traceFactor(kind)
                    cells += [trace.x, trace.y, trace.z].map { "\($0)" }
                } else {
                    cells += ["nan", "nan", "nan"]
                }
            }
            text += cells.joined(separator: ",") + "\n"
        }
        return (text, rows.count)
    }

    /// The column prefix of a motion sensor kind.
    private static func prefix(_ kind: SensorKind) -> String {
        columns.first { $0.kind == kind }?.prefix ?? kind.rawValue
    }

    /// Core Motion unit → trace unit.
    private static func traceFactor(_ kind: SensorKind) -> Double {
        kind.isAccelerometer ? -PhysicalConstants.standardGravity : 1
    }
}
