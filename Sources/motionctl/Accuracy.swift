import ArgumentParser
import Foundation
import MotionCore
import MotionCommandLine

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

    @Option(help: "Override the motion bias time constant (s; 0 disables), to study one parameter set across all files.")
    var motionBiasTau: Double?

    @OptionGroup var engine: EngineOptions

    /// The files and VQF 2.1.2's published results on them (total RMSE, degrees; dataset README).
    static let files: [(path: String, vqf9D: Double, vqf6D: Double)] = [
        ("full_285.7hz/07_undisturbed_fast_rotation_B.csv", 1.75, 1.55),
        ("dec3_95.2hz/05_undisturbed_slow_rotation_with_breaks_B.csv", 1.02, 0.68),
        ("dec3_95.2hz/07_undisturbed_fast_rotation_B.csv", 2.55, 1.55),
        ("dec3_95.2hz/16_undisturbed_fast_translation_B.csv", 0.74, 0.64),
        ("dec3_95.2hz/24_disturbed_tapping_A.csv", 1.60, 0.84),
        ("dec3_95.2hz/30_disturbed_stationary_magnet_C.csv", 2.33, 5.72),
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
        print("| file | 9D total / heading / incl. | VQF 9D total | 6D total / heading / incl. | VQF 6D total |")
        print("|---|---|---|---|---|")
        var sums = (nine: 0.0, six: 0.0, vqf9: 0.0, vqf6: 0.0)
        for file in Self.files {
            let trace = try loadTrace("\(dataset)/\(file.path)")
            let references = trace.records.map(\.reference)
            let evaluate = trace.records.map { $0.movement ?? false }
            func score(_ frame: AttitudeReferenceFrame) -> OrientationError.Summary {
                let estimates = TraceFusion.attitudes(for: trace.records, frame: frame, configuration: configuration)
                    .map { $0.map(OrientationError.eastNorthUp(fromNorthWestUp:)) }
                return OrientationError.summarize(estimates: estimates, references: references, evaluate: evaluate,
                                                  removeHeadingOffset: frame == .xArbitraryZVertical)
            }
            let nine = score(.xMagneticNorthZVertical), six = score(.xArbitraryZVertical)
            sums.nine += nine.rmse.total
            sums.six += six.rmse.total
            sums.vqf9 += file.vqf9D
            sums.vqf6 += file.vqf6D
            func triple(_ s: OrientationError.Summary) -> String {
                String(format: "%.2f / %.2f / %.2f", s.rmse.total, s.rmse.heading, s.rmse.inclination)
            }
            print("| \(file.path) | \(triple(nine)) | \(String(format: "%.2f", file.vqf9D)) | \(triple(six)) | \(String(format: "%.2f", file.vqf6D)) |")
        }
        let n = Double(Self.files.count)
        print(String(format: "| **mean** | **%.2f** | %.2f | **%.2f** | %.2f |", sums.nine / n, sums.vqf9 / n, sums.six / n, sums.vqf6 / n))
    }
}
