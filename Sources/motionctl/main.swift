import ArgumentParser
import Foundation
import MotionCore

/// motionctl: the command-line companion of motiond. Offline commands work on trace files
/// without a daemon.
struct MotionCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Inspect and use motion data from motiond, or process recorded traces offline.",
        subcommands: [Fuse.self, Accuracy.self, Bench.self])
}

/// Reads a trace or exits with the reason.
func loadTrace(_ path: String) throws -> TraceReader.Trace {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ValidationError("cannot read \(path): \(error.localizedDescription)")
    }
    do {
        return try TraceReader.parse(text)
    } catch {
        throw ValidationError("\(path): \(error)")
    }
}

struct Fuse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon's attitude estimator over a trace; write t,qw,qx,qy,qz.",
        discussion: "The quaternion rotates device-frame vectors into the reference frame (Z up).")

    @Option(help: "Trace CSV (t,gyr_*,acc_*[,mag_*]).")
    var input: String

    @Option(help: "Output CSV.")
    var output: String

    @Option(help: "xMagneticNorthZVertical (9D, default) or xArbitraryZVertical (6D, no magnetometer).")
    var frame = "xMagneticNorthZVertical"

    func run() throws {
        let nine: Bool
        switch AttitudeReferenceFrame(name: frame) {
        case .xMagneticNorthZVertical?: nine = true
        case .xArbitraryZVertical?: nine = false
        default: throw ValidationError("--frame \(frame): supported here are xMagneticNorthZVertical and xArbitraryZVertical")
        }
        let trace = try loadTrace(input)
        if nine && !trace.kinds.contains(.magnetometer) {
            throw ValidationError("\(input) has no magnetometer columns: use --frame xArbitraryZVertical")
        }
        let attitudes = TraceFusion.attitudes(for: trace.records, magnetometer: nine)
        var text = "t,qw,qx,qy,qz\n"
        for (record, q) in zip(trace.records, attitudes) {
            text += "\(record.time),\(q.w),\(q.x),\(q.y),\(q.z)\n"
        }
        try text.write(toFile: output, atomically: true, encoding: .utf8)
    }
}

struct Accuracy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "BROAD accuracy of the estimator on the shared recordings, beside VQF's.",
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
        print("| file | 9D total / heading / incl. | VQF 9D total | 6D total / heading / incl. | VQF 6D total |")
        print("|---|---|---|---|---|")
        var parameters = AttitudeEstimatorParameters()
        if let accelerometerTau { parameters.accelerometerTau = accelerometerTau }
        if let magnetometerTau { parameters.magnetometerTau = magnetometerTau }
        if let motionBiasTau { parameters.motionBiasTau = motionBiasTau }
        var sums = (nine: 0.0, six: 0.0, vqf9: 0.0, vqf6: 0.0)
        for file in Self.files {
            let trace = try loadTrace("\(dataset)/\(file.path)")
            let references = trace.records.map(\.reference)
            let evaluate = trace.records.map { $0.movement ?? false }
            func score(_ magnetometer: Bool) -> OrientationError.Summary {
                let estimates = TraceFusion.attitudes(for: trace.records, magnetometer: magnetometer, parameters: parameters)
                    .map(OrientationError.eastNorthUp(fromNorthWestUp:))
                return OrientationError.summarize(estimates: estimates, references: references, evaluate: evaluate,
                                                  removeHeadingOffset: !magnetometer)
            }
            let nine = score(true), six = score(false)
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

MotionCtl.main()

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time the attitude estimator alone on a trace (build with -c release).")

    @Option(help: "Trace CSV with gyroscope, accelerometer and magnetometer columns.")
    var input = "../shared/datasets/broad/full_285.7hz/07_undisturbed_fast_rotation_B.csv"

    @Option(help: "Passes over the trace; the fastest is reported.")
    var repeats = 5

    func run() throws {
        let trace = try loadTrace(input)
        var best = Double.infinity
        var checksum = 0.0
        for _ in 0..<max(1, repeats) {
            let start = DispatchTime.now().uptimeNanoseconds
            let attitudes = TraceFusion.attitudes(for: trace.records, magnetometer: true)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            checksum += attitudes.last?.w ?? 0
            best = min(best, elapsed)
        }
        let perRow = best / Double(trace.records.count) * 1e6
        print(String(format: "%d rows (gyroscope + accelerometer + magnetometer each), fastest of %d passes: %.3f s, %.3f µs per row (checksum %.6f)",
                     trace.records.count, max(1, repeats), best, perRow, checksum))
    }
}
