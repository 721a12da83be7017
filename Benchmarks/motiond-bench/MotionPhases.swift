import Glibc
import MotionCore

/// A recording's movement phase split at 30 s after it begins (the time a calibration has to
/// converge in ordinary motion).
struct MotionPhases {
    var start: Double
    var first: [Bool]
    var after: [Bool]
    var movement: [Bool]
    var times: [Double]

    init(_ records: [TraceRecord], split: Double = 30) {
        movement = records.map { $0.movement ?? false }
        times = records.map(\.time)
        start = records.first { $0.movement ?? false }?.time ?? 0
        let start = start
        first = zip(movement, times).map { $0 && $1 < start + split }
        after = zip(movement, times).map { $0 && $1 >= start + split }
    }

    /// How close to the hard iron to learn the calibration's offset must stay to count as
    /// learned, µT (a tenth of a weak field's 25 µT: about 5° of heading at most).
    static let offsetTolerance = 2.0

    /// Scores one run of the 9D (north) frame against the references. `hardIron` is the offset
    /// the calibration should learn, µT (an added one); nil: the one it ends with (a recording's
    /// own, such as 34's attached magnet).
    func score(_ outputs: [TraceFusion.Output], references: [Quaternion?], hardIron: Vector3? = nil) -> VariantScore {
        let estimates = outputs.map { $0.attitude.map(OrientationError.eastNorthUp(fromNorthWestUp:)) }
        func rmse(_ mask: [Bool]) -> Double {
            OrientationError.summarize(estimates: estimates, references: references, evaluate: mask, removeHeadingOffset: false).rmse.total
        }
        var largest = 0.0
        // The signed heading error while the calibration is reported uncalibrated, unwrapped
        // from row to row: its range is the swing.
        var signed: Double?, lowest = Double.infinity, highest = -Double.infinity
        for i in estimates.indices where first[i] {
            guard let estimate = estimates[i], let reference = references[i] else { continue }
            let e = OrientationError.errorQuaternion(estimate: estimate, reference: reference)
            largest = max(largest, OrientationError.components(of: e).heading)
            guard outputs[i].calibrationAccuracy == .uncalibrated else { continue }
            let heading = 2 * atan2(e.z, e.w) * 180 / .pi
            let unwrapped = signed.map { $0 + remainder(heading - $0, 360) } ?? heading
            signed = unwrapped
            (lowest, highest) = (min(lowest, unwrapped), max(highest, unwrapped))
        }
        let high = outputs.indices.first { outputs[$0].calibrationAccuracy == .high }
        // The first row after the last one off the hard iron (every row when none is off).
        let target = hardIron ?? outputs.last?.magnetometerOffset ?? Vector3(0, 0, 0)
        let from = (outputs.indices.last { (outputs[$0].magnetometerOffset - target).norm > Self.offsetTolerance }).map { $0 + 1 } ?? 0
        let learned = from < outputs.count ? from : nil
        var steps: [(seconds: Double, length: Double)] = [], standing = Vector3(0, 0, 0)
        for (output, time) in zip(outputs, times) where (output.magnetometerOffset - standing).norm > Self.offsetTolerance {
            standing = output.magnetometerOffset
            steps.append((time - start, standing.norm))
        }
        return VariantScore(first: rmse(first), after: rmse(after), largestHeadingFirst: largest,
                            headingSwingFirst: signed == nil ? 0 : highest - lowest,
                            highAfter: high.map { max(0, times[$0] - start) },
                            offsetLearnedAfter: learned.map { max(0, times[$0] - start) }, offsetSteps: steps)
    }
}
