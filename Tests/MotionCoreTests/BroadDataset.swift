import Foundation
import MotionCore
import Testing

/// The shared BROAD recordings beside the clone (`../shared/datasets/broad`), for tests that run
/// only where they exist. BROAD dataset: D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD—A
/// Benchmark for Robust Inertial Orientation Estimation", Data 6(7):72, 2021,
/// doi:10.3390/data6070072, CC BY 4.0; a modified CSV subset.
enum BroadDataset {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/datasets/broad")

    static func url(_ file: String) -> URL { root.appendingPathComponent(file) }

    static func exists(_ file: String) -> Bool { FileManager.default.fileExists(atPath: url(file).path) }

    static func trace(_ file: String) throws -> TraceReader.Trace {
        try TraceReader.parse(String(contentsOf: url(file), encoding: .utf8))
    }

    /// Runs `body` on every record, yielding to other tests every 2,000 records: a long
    /// synchronous loop would starve the async emulation tests on a 2-core machine.
    static func replay(_ trace: TraceReader.Trace, _ body: (TraceRecord) -> Void) async {
        for (index, record) in trace.records.enumerated() {
            body(record)
            if index % 2_000 == 0 { await Task.yield() }
        }
    }

    static let missing: Comment = "BROAD dataset not found beside the clone (../shared/datasets/broad)"
}
