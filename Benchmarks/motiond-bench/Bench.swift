import ArgumentParser
import Foundation
import MotionCommandLine
import MotionCore
import MotionToolSupport

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time the motion engine (9D with magnetometer calibration) on a trace (build with -c release).")

    @Option(help: "Trace CSV with gyroscope, accelerometer and magnetometer columns.")
    var input = "../shared/datasets/broad/full_285.7hz/07_undisturbed_fast_rotation_B.csv"

    @Option(help: "Passes over the trace; the fastest is reported.")
    var repeats = 5

    @OptionGroup var engine: EngineOptions
    @OptionGroup var sensorLags: SensorLagOption

    func run() throws {
        let trace = try loadTrace(input)
        var configuration = try engine.configuration()
        sensorLags.apply(to: &configuration)
        var best = Double.infinity
        var checksum = 0.0
        for _ in 0..<max(1, repeats) {
            let start = DispatchTime.now().uptimeNanoseconds
            let attitudes = TraceFusion.attitudes(for: trace.records, frame: .xMagneticNorthZVertical, configuration: configuration)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            checksum += attitudes.last??.w ?? 0
            best = min(best, elapsed)
        }
        let perRow = best / Double(trace.records.count) * 1e6
        print("\(trace.records.count) rows (gyroscope + accelerometer + magnetometer each), \(configuration.magnetometerCalibration.rawValue) magnetometer calibration, "
            + String(format: "fastest of %d passes: %.3f s, %.3f µs per row (checksum %.6f)", max(1, repeats), best, perRow, checksum))
    }
}
