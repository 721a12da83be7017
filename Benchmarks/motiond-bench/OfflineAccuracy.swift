import ArgumentParser
import Foundation
import MotionCommandLine
import MotionCore
import MotionToolSupport

/// `motiond-bench accuracy-offline`: the offline estimator (`motionctl fuse --offline`) on the
/// shared BROAD recordings beside offline VQF, its anchor, and the online estimates of both.
struct OfflineAccuracy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy-offline",
        abstract: "BROAD accuracy of the offline smoother beside offline VQF (vqf 2.1.2, run now) and the online estimates.",
        discussion: """
        VQF's rows come from the vqf package at run time (Benchmarks/accuracy/offline_vqf.py in the Python \
        given by --python; `make accuracy` installs vqf 2.1.2 there). Without it they are left out, with the reason.
        BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD—A Benchmark for Robust Inertial \
        Orientation Estimation", Data 6(7):72, 2021, doi:10.3390/data6070072, CC BY 4.0 (a modified CSV subset).
        """)

    @Option(help: "Directory of the BROAD CSV subset.")
    var dataset = "../shared/datasets/broad"

    @Option(help: "Python with numpy and vqf 2.1.2 (VQF's rows).")
    var python = ".build/vqf-venv/bin/python3"

    @Option(help: "The script computing VQF's attitudes.")
    var vqfScript = "Benchmarks/accuracy/offline_vqf.py"

    @Option(help: "Where the script writes VQF's attitudes.")
    var vqfOutput = ".build/offline-vqf"

    @Option(help: "Override the smoother's accelerometer time constant (s), to study one parameter set across all files.")
    var accelerometerTau: Double?

    @Option(help: "Override the smoother's heading time constant (s).")
    var headingTau: Double?

    @Option(help: "Override the smoother's heading outlier threshold (degrees).")
    var headingOutlier: Double?

    @Flag(help: "Take the sensors as simultaneous (no lag estimation).")
    var noSensorLags = false

    @OptionGroup var engine: EngineOptions

    /// One file's scores: ours offline and online, VQF's offline and online (nil without VQF).
    private struct Scores {
        var offline9D, offline6D, online9D: OrientationError.Components
        var vqf: (offline9D: OrientationError.Components, offline6D: OrientationError.Components, online9D: OrientationError.Components)?
        var lags: (accelerometer: Double, magnetometer: Double?)
    }

    func run() throws {
        guard FileManager.default.fileExists(atPath: dataset) else {
            print("BROAD dataset not found at \(dataset) (it lives in ../shared beside a CI clone); nothing to evaluate")
            return
        }
        let configuration = try engine.configuration()
        var parameters = AttitudeSmootherParameters()
        if let accelerometerTau { parameters.accelerometerTau = accelerometerTau }
        if let headingTau { parameters.headingTau = headingTau }
        if let headingOutlier { parameters.headingOutlierThreshold = headingOutlier }
        if noSensorLags { parameters.estimatesSensorLags = false }
        let paths = Accuracy.files.map(\.path)
        let vqfMissing = runVQF(paths)
        if let vqfMissing { print("VQF rows left out: \(vqfMissing)") }

        print("Offline (motionctl fuse --offline) beside offline VQF and the online estimates; 9D total / heading / inclination, 6D total (heading offset removed).")
        print("| file | offline 9D | offline VQF 9D | online 9D | online VQF 9D | offline 6D | offline VQF 6D | lags acc / mag (ms) |")
        print("|---|---|---|---|---|---|---|---|")
        var all: [Scores] = []
        for path in paths {
            let trace = try loadTrace("\(dataset)/\(path)")
            let references = trace.records.map(\.reference)
            let evaluate = trace.records.map { $0.movement ?? false }
            func score(_ estimates: [Quaternion?], northWestUp: Bool, sixD: Bool) -> OrientationError.Components {
                OrientationError.summarize(estimates: northWestUp ? estimates.map { $0.map(OrientationError.eastNorthUp(fromNorthWestUp:)) } : estimates,
                                           references: references, evaluate: evaluate, removeHeadingOffset: sixD).rmse
            }
            let offline = TraceFusion.smoothed(trace.records, configuration: configuration, parameters: parameters)
            let online = TraceFusion.attitudes(for: trace.records, frame: .xMagneticNorthZVertical, configuration: configuration)
            var scores = Scores(offline9D: score(offline.attitude9D, northWestUp: true, sixD: false),
                                offline6D: score(offline.attitude6D, northWestUp: false, sixD: true),
                                online9D: score(online, northWestUp: true, sixD: false),
                                lags: (offline.accelerometerLag, offline.magnetometerLag))
            if vqfMissing == nil {
                let vqf = try readVQF(path, rows: trace.records.count)
                scores.vqf = (score(vqf.offline9D, northWestUp: false, sixD: false), score(vqf.offline6D, northWestUp: false, sixD: true),
                              score(vqf.online9D, northWestUp: false, sixD: false))
            }
            all.append(scores)
            print(row(path, scores))
        }
        print(meanRow(all))
        guard all.allSatisfy({ $0.vqf != nil }) else { return }
        let mean = { (pick: (Scores) -> Double) in all.map(pick).reduce(0, +) / Double(all.count) }
        let (ours, theirs) = (mean { $0.offline9D.total }, mean { $0.vqf!.offline9D.total })
        let (inclination, theirInclination) = (mean { $0.offline9D.inclination }, mean { $0.vqf!.offline9D.inclination })
        print(String(format: "offline vs offline VQF, mean: 9D %.2f° vs %.2f° (%.2f×), inclination %.2f° vs %.2f° (%.2f×)",
                     ours, theirs, ours / theirs, inclination, theirInclination, inclination / theirInclination))
    }

    private func triple(_ s: OrientationError.Components) -> String {
        String(format: "%.2f / %.2f / %.2f", s.total, s.heading, s.inclination)
    }

    private func pair(_ s: OrientationError.Components) -> String {
        String(format: "%.2f / %.2f", s.total, s.inclination)
    }

    private func row(_ path: String, _ s: Scores) -> String {
        let lags = String(format: "%.1f / ", s.lags.accelerometer * 1000) + (s.lags.magnetometer.map { String(format: "%.1f", $0 * 1000) } ?? "–")
        return "| \(path) | \(triple(s.offline9D)) | \(s.vqf.map { triple($0.offline9D) } ?? "–") | \(pair(s.online9D)) | "
            + "\(s.vqf.map { pair($0.online9D) } ?? "–") | \(pair(s.offline6D)) | \(s.vqf.map { pair($0.offline6D) } ?? "–") | \(lags) |"
    }

    private func meanRow(_ all: [Scores]) -> String {
        func mean(_ pick: (Scores) -> OrientationError.Components) -> OrientationError.Components {
            var sum = all.map(pick).reduce(into: OrientationError.Components(total: 0, heading: 0, inclination: 0)) {
                ($0.total, $0.heading, $0.inclination) = ($0.total + $1.total, $0.heading + $1.heading, $0.inclination + $1.inclination)
            }
            let n = Double(all.count)
            (sum.total, sum.heading, sum.inclination) = (sum.total / n, sum.heading / n, sum.inclination / n)
            return sum
        }
        let vqf = all.allSatisfy { $0.vqf != nil }
        return "| **mean** | **\(triple(mean(\.offline9D)))** | \(vqf ? triple(mean { $0.vqf!.offline9D }) : "–") | \(pair(mean(\.online9D))) | "
            + "\(vqf ? pair(mean { $0.vqf!.online9D }) : "–") | \(pair(mean(\.offline6D))) | \(vqf ? pair(mean { $0.vqf!.offline6D }) : "–") | |"
    }

    /// Runs the VQF script over `paths`; nil when it wrote its files, else why not.
    private func runVQF(_ paths: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "no Python at \(python) (`make accuracy` makes one with vqf 2.1.2 from PyPI, which needs the network once)"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [vqfScript, dataset, vqfOutput] + paths
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return "cannot run \(python): \(error)"
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return "\(vqfScript) failed (exit \(process.terminationStatus)): \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return nil
    }

    /// VQF's attitudes for `path` as the script wrote them (sensor → East-North-Up).
    private func readVQF(_ path: String, rows: Int) throws -> (offline9D: [Quaternion?], offline6D: [Quaternion?], online9D: [Quaternion?]) {
        let file = "\(vqfOutput)/\(path.replacingOccurrences(of: "/", with: "__"))"
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst()
        guard lines.count == rows else { throw ValidationError("\(file): \(lines.count) rows, the trace has \(rows)") }
        var out: (offline9D: [Quaternion?], offline6D: [Quaternion?], online9D: [Quaternion?]) = ([], [], [])
        for line in lines {
            let v = line.split(separator: ",").map { Double($0) ?? .nan }
            guard v.count == 17 else { throw ValidationError("\(file): a row of \(v.count) values, expected 17") }
            func q(_ at: Int) -> Quaternion? {
                let q = Quaternion(w: v[at], x: v[at + 1], y: v[at + 2], z: v[at + 3])
                return q.norm.isFinite && q.norm > 0 ? q : nil
            }
            out.offline9D.append(q(1))
            out.offline6D.append(q(5))
            out.online9D.append(q(9))
        }
        return out
    }
}
