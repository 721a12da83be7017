import ArgumentParser
import Foundation
import MotionCommandLine
import MotionCore
import MotionToolSupport

struct Accuracy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "BROAD accuracy of the motion engine on the shared recordings, beside VQF's.",
        discussion: """
        BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD—A Benchmark for Robust Inertial \
        Orientation Estimation", Data 6(7):72, 2021, doi:10.3390/data6070072, CC BY 4.0 (a modified CSV subset).
        """)

    @Option(help: "Directory of the BROAD CSV subset.")
    var dataset = "../shared/datasets/broad"

    @Option(help: "Override the accelerometer time constant (s), to study one parameter set across all files.")
    var accelerometerTau: Double?

    @Option(help: "Override the magnetometer time constant (s), to study one parameter set across all files.")
    var magnetometerTau: Double?

    @Option(help: "Override the relative norm deviation over which an undisturbed magnetometer reading's heading weight falls by e (0: not weighed by norm), to study one parameter set across all files.")
    var magneticNormWidth: Double?

    @Option(help: "Override the dip deviation (degrees) over which an undisturbed magnetometer reading's heading weight falls by e (0: not weighed by dip), to study one parameter set across all files.")
    var magneticDipWidth: Double?

    @Option(help: "Override the motion bias time constant (s; 0 disables), to study one parameter set across all files.")
    var motionBiasTau: Double?

    @Option(help: "Override the turning (rad²/s) from which the gyroscope's fit may be adopted, to study one parameter set across all files.")
    var gyroscopeMinimumTurning: Double?

    @OptionGroup var sensorLags: SensorLagOption

    @Flag(inversion: .prefixedNo, help: "Also run every file with a hard iron of 10, 25 and 50 µT plus 10 % soft iron added to its magnetometer.")
    var ironVariants = true

    @OptionGroup var engine: EngineOptions

    /// The files and VQF 2.1.2's published results on them (RMSE, degrees; dataset README): 9D and
    /// 6D total, and the inclination (the same for both).
    static let files: [(path: String, vqf9D: Double, vqf6D: Double, vqfInclination: Double)] = [
        ("full_285.7hz/07_undisturbed_fast_rotation_B.csv", 1.75, 1.55, 1.02),
        ("dec3_95.2hz/05_undisturbed_slow_rotation_with_breaks_B.csv", 1.02, 0.68, 0.38),
        ("dec3_95.2hz/07_undisturbed_fast_rotation_B.csv", 2.55, 1.55, 1.05),
        ("dec3_95.2hz/16_undisturbed_fast_translation_B.csv", 0.74, 0.64, 0.53),
        ("dec3_95.2hz/24_disturbed_tapping_A.csv", 1.60, 0.84, 0.61),
        ("dec3_95.2hz/30_disturbed_stationary_magnet_C.csv", 2.33, 5.72, 2.05),
        ("dec3_95.2hz/09_undisturbed_fast_rotation_with_breaks_B.csv", 1.51, 1.13, 0.87),
        ("dec3_95.2hz/26_disturbed_phone_vibration_A.csv", 1.94, 1.08, 0.57),
        ("dec3_95.2hz/31_disturbed_stationary_magnet_D.csv", 2.30, 3.44, 1.78),
        ("dec3_95.2hz/34_disturbed_attached_magnet_3cm.csv", 3.40, 3.59, 0.85),
    ]

    func run() throws {
        guard FileManager.default.fileExists(atPath: dataset) else {
            print("BROAD dataset not found at \(dataset) (it lives in ../shared beside a CI clone); nothing to evaluate")
            return
        }
        var configuration = try engine.configuration()
        if let accelerometerTau { configuration.estimator.accelerometerTau = accelerometerTau }
        if let magnetometerTau { configuration.estimator.magnetometerTau = magnetometerTau }
        if let motionBiasTau { configuration.estimator.motionBiasTau = motionBiasTau }
        if let magneticNormWidth { configuration.estimator.magneticNormWidth = magneticNormWidth }
        if let magneticDipWidth { configuration.estimator.magneticDipWidth = magneticDipWidth }
        sensorLags.apply(to: &configuration)
        if let gyroscopeMinimumTurning { configuration.calibrator.gyroscopeMinimumTurning = gyroscopeMinimumTurning }
        var trusted = configuration
        trusted.magnetometerCalibration = .trusted
        print("9D with the magnetometer calibration configured (\(configuration.magnetometerCalibration.rawValue)) and trusted; 6D; VQF's beside each.")
        print("| file | 9D total / heading / incl. | 9D trusted total | VQF 9D total | 6D total / heading / incl. | VQF 6D total | VQF incl. | lags acc / mag (ms) |")
        print("|---|---|---|---|---|---|---|---|")
        var scores: [(nine: OrientationError.Summary, nineTrusted: OrientationError.Summary, six: OrientationError.Summary)] = []
        // Per variant (the clean recording first), per file.
        let variants: [Double?] = [nil] + (ironVariants ? MagnetometerDistortion.hardIronMagnitudes : [])
        var variantScores = [[VariantScore]](repeating: [], count: variants.count)
        var trustedAfter: [Double] = []
        for (index, file) in Self.files.enumerated() {
            let trace = try loadTrace("\(dataset)/\(file.path)")
            let references = trace.records.map(\.reference)
            let evaluate = trace.records.map { $0.movement ?? false }
            func score(_ frame: AttitudeReferenceFrame, _ configuration: MotionEngine.Configuration) -> (OrientationError.Summary, lags: String) {
                let outputs = TraceFusion.outputs(for: trace.records, frame: frame, configuration: configuration)
                let estimates = outputs.map { $0.attitude.map(OrientationError.eastNorthUp(fromNorthWestUp:)) }
                let last = outputs.last
                return (OrientationError.summarize(estimates: estimates, references: references, evaluate: evaluate,
                                                   removeHeadingOffset: frame == .xArbitraryZVertical),
                        String(format: "%.1f / %.1f", 1000 * (last?.sensorLags.accelerometer ?? 0), 1000 * (last?.sensorLags.magnetometer ?? 0)))
            }
            let (nine, lags) = score(.xMagneticNorthZVertical, configuration), six = score(.xArbitraryZVertical, configuration).0
            let nineTrusted = score(.xMagneticNorthZVertical, trusted).0
            scores.append((nine, nineTrusted, six))
            func triple(_ s: OrientationError.Summary) -> String {
                String(format: "%.2f / %.2f / %.2f", s.rmse.total, s.rmse.heading, s.rmse.inclination)
            }
            func two(_ value: Double) -> String { String(format: "%.2f", value) }
            let phases = MotionPhases(trace.records)
            trustedAfter.append(phases.score(TraceFusion.outputs(for: trace.records, frame: .xMagneticNorthZVertical, configuration: trusted),
                                             references: references).after)
            for (v, magnitude) in variants.enumerated() {
                let distortion = magnitude.map { MagnetometerDistortion.variant(magnitude: $0, fileIndex: index) }
                let records = distortion?.apply(to: trace.records) ?? trace.records
                variantScores[v].append(phases.score(TraceFusion.outputs(for: records, frame: .xMagneticNorthZVertical, configuration: configuration),
                                                     references: references, hardIron: distortion?.hardIron))
            }
            print("| \(file.path) | \(triple(nine)) | \(two(nineTrusted.rmse.total)) | \(two(file.vqf9D)) | \(triple(six)) | \(two(file.vqf6D)) | \(two(file.vqfInclination)) | \(lags) |")
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        print(String(format: "| **mean** | **%.3f** (incl. %.2f) | %.3f | %.2f | **%.2f** (incl. %.2f) | %.2f | %.2f | |",
                     mean(scores.map(\.nine.rmse.total)), mean(scores.map(\.nine.rmse.inclination)), mean(scores.map(\.nineTrusted.rmse.total)),
                     mean(Self.files.map(\.vqf9D)), mean(scores.map(\.six.rmse.total)), mean(scores.map(\.six.rmse.inclination)),
                     mean(Self.files.map(\.vqf6D)), mean(Self.files.map(\.vqfInclination))))
        for (v, magnitude) in variants.enumerated() {
            printVariant(magnitude, scores: variantScores[v], trustedAfter: trustedAfter, calibration: configuration.magnetometerCalibration)
        }
    }

    /// One variant's table: 9D over the first 30 s of motion and after, beside the trusted clean
    /// recording after 30 s; the largest heading error in the first 30 s and its swing there while
    /// uncalibrated (the range of the signed error); when accuracy reached high; from when the
    /// calibration's offset stayed on the hard iron (the added one; on the recordings as they are,
    /// the one the calibration ends with).
    private func printVariant(_ magnitude: Double?, scores: [VariantScore], trustedAfter: [Double],
                              calibration: MotionEngine.MagnetometerCalibrationMode) {
        let title = magnitude.map { String(format: "hard iron %.0f µT + 10 %% soft iron", $0) } ?? "the recordings as they are"
        print("\n9D (\(calibration.rawValue)), \(title); seconds from the start of motion; trusted = the clean recording's readings trusted.")
        let offset = String(format: "offset within %.0f µT of %@ after", MotionPhases.offsetTolerance, magnitude == nil ? "its last" : "the added")
        print("| file | first 30 s | after 30 s | trusted after 30 s | after − trusted | largest heading error, first 30 s | its swing there while uncalibrated | high after | \(offset) |")
        print("|---|---|---|---|---|---|---|---|---|")
        func high(_ seconds: Double?) -> String { seconds.map { String(format: "%.1f s", $0) } ?? "never" }
        for (file, (score, trusted)) in zip(Self.files, zip(scores, trustedAfter)) {
            print(String(format: "| %@ | %.2f | %.2f | %.2f | %+.2f | %.1f | %.1f | %@ | %@ |", Self.label(file.path), score.first, score.after, trusted,
                         score.after - trusted, score.largestHeadingFirst, score.headingSwingFirst, high(score.highAfter), high(score.offsetLearnedAfter)))
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        func worst(_ seconds: [Double?]) -> String {
            let reached = seconds.compactMap { $0 }
            return reached.count == seconds.count ? "max " + high(reached.max()) : "\(seconds.count - reached.count) never"
        }
        print(String(format: "| **mean** | %.2f | **%.2f** | %.2f | %+.2f | %.1f (max %.1f) | %.1f (max %.1f) | %@ | %@ |", mean(scores.map(\.first)), mean(scores.map(\.after)),
                     mean(trustedAfter), mean(scores.map(\.after)) - mean(trustedAfter), mean(scores.map(\.largestHeadingFirst)),
                     scores.map(\.largestHeadingFirst).max() ?? 0, mean(scores.map(\.headingSwingFirst)), scores.map(\.headingSwingFirst).max() ?? 0,
                     worst(scores.map(\.highAfter)), worst(scores.map(\.offsetLearnedAfter))))
        guard magnitude == nil else { return }
        // Where the readings carry a hard iron of their own (34's attached magnet): when it was learned.
        let steps = zip(Self.files, scores).filter { !$0.1.offsetSteps.isEmpty }.map { file, score in
            Self.label(file.path) + ": " + score.offsetSteps.map { String(format: "%.1f s → %.1f µT", $0.seconds, $0.length) }.joined(separator: ", ")
        }
        print("Calibration offset steps over \(Int(MotionPhases.offsetTolerance)) µT (seconds of motion → the offset's length): " +
              (steps.isEmpty ? "none" : steps.joined(separator: "; ")))
    }

    /// `dec3_95.2hz/05_undisturbed….csv` → `dec3/05`.
    static func label(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return "\(parts.first?.split(separator: "_").first ?? "")/\(parts.last?.prefix(2) ?? "")"
    }
}
