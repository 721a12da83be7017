import Foundation
@testable import TestSupport

/// A German locale (decimal comma: `LC_NUMERIC` prints and reads 0,5) compiled with `localedef`
/// into a temporary directory, for processes that must not care: ``environment()`` sets
/// `LOCPATH` to it and `LC_ALL` to it, so the child runs as on a German desktop.
enum DecimalCommaLocale {
    static let name = "de_DE.UTF-8"

    /// Whether the locale sources (Debian's `locales` package) are there to compile it from: a
    /// cheap check for `.enabled(if:)`, which Swift Testing evaluates while planning the run.
    static let isAvailable = FileManager.default.fileExists(atPath: "/usr/share/i18n/locales/de_DE")

    /// The environment additions. The locale is compiled once per test process, by the first
    /// test that asks; localedef takes seconds, awaited without holding a shared test thread.
    static func environment() async throws -> [String: String] {
        try await compiled.value
    }

    private static let compiled = Task<[String: String], any Error> {
        let directory = try Emulation.temporaryDirectory()
        let output = directory.appendingPathComponent(name).path
        let run = try await Emulation.run(["/usr/bin/localedef", "-i", "de_DE", "-f", "UTF-8", output])
        guard run.status == 0 else { throw TestFailure("localedef \(name) failed (\(run.status)): \(run.stderr)") }
        return ["LOCPATH": directory.path, "LC_ALL": name]
    }
}
