import Foundation
@testable import TestSupport

/// A German locale (decimal comma: `LC_NUMERIC` prints and reads 0,5) compiled with `localedef`
/// into a temporary directory, for processes that must not care: `environment` sets `LOCPATH`
/// to it and `LC_ALL` to it, so the child runs as on a German desktop. Nil when the locale
/// sources (Debian's `locales` package) are missing.
enum DecimalCommaLocale {
    static let name = "de_DE.UTF-8"

    /// The environment additions, compiled once per test process.
    static let environment: [String: String]? = {
        guard FileManager.default.fileExists(atPath: "/usr/share/i18n/locales/de_DE"),
              let directory = try? Emulation.temporaryDirectory() else { return nil }
        let output = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/localedef")
        process.arguments = ["-i", "de_DE", "-f", "UTF-8", output]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return ["LOCPATH": directory.path, "LC_ALL": name]
    }()
}
