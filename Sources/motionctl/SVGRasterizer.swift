import FoundationEssentials
import Glibc
import MotionCore
import MotionSync
import MotionToolSupport

/// Turns an SVG document into a PNG with `rsvg-convert` (librsvg; Debian package
/// librsvg2-bin), the one outside tool `motionctl plot` uses, and only for PNG output.
enum SVGRasterizer {
    /// Why no PNG was written; the text says what to do.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let tool = "rsvg-convert"

    /// Writes `svg` rendered as a PNG to `path` (replacing it only when the conversion worked).
    static func writePNG(_ svg: String, to path: String) throws {
        guard let executable = locate() else {
            throw Failure(description: "\(tool) is not installed, and PNG output needs it: apt-get install librsvg2-bin (or write .svg)")
        }
        // Converted beside the output, then renamed over it: a failure leaves no half-written PNG.
        let output = URL(fileURLWithPath: path)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("motionctl-plot-\(UUID().uuidString).svg")
        let converted = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).\(UUID().uuidString).tmp")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: converted)
        }
        try svg.write(to: input, atomically: false, encoding: .utf8)

        // A minute: rsvg-convert draws a plot in well under a second.
        let result = CommandRunner(timeout: 60).run([executable, "--format", "png", "--output", converted.path, input.path])
        guard result.status == 0 else {
            throw Failure(description: "\(tool) failed (exit status \(result.status)): \(result.stderr.trimmingWhitespace())")
        }
        guard rename(converted.path, output.path) == 0 else {
            throw Failure(description: "cannot write \(path): \(SystemError.last())")
        }
    }

    /// The tool's path on `PATH`, if it is there.
    private static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
