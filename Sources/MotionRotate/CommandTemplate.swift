
/// A `--command` template: split into arguments once, like a shell would but without one, and
/// its placeholders filled in per rotation inside each argument, so a value is never split or
/// interpreted.
///
/// Placeholders: `{output}` (the `--output` name), `{transform}` (the `wl_output` transform in
/// degrees counter-clockwise: 0, 90, 180, 270), `{rotation}` (xrandr's name: normal, left,
/// inverted, right), `{orientation}` (motiond's: portrait, portraitUpsideDown, landscapeLeft,
/// landscapeRight). See ``ScreenRotation`` for how they correspond.
struct CommandTemplate: Sendable {
    /// Why a template is not usable.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static let placeholders = ["output", "transform", "rotation", "orientation"]

    private let arguments: [String]

    init(_ text: String) throws(Invalid) {
        do {
            arguments = try ShellWords.split(text)
        } catch {
            throw Invalid(description: error.description)
        }
        guard !arguments.isEmpty else { throw Invalid(description: "the command template is empty") }
        for argument in arguments {
            for name in Self.names(in: argument) where !Self.placeholders.contains(name) {
                throw Invalid(description: "unknown placeholder {\(name)} in \(text); known: " + Self.placeholders.map { "{\($0)}" }.joined(separator: " "))
            }
        }
    }

    /// Whether the template names the output.
    var usesOutput: Bool { arguments.contains { Self.names(in: $0).contains("output") } }

    func command(for rotation: ScreenRotation, output: String) -> [String] {
        let values = ["output": output, "transform": String(rotation.degrees),
                      "rotation": rotation.xrandrName, "orientation": rotation.orientation.rawValue]
        return arguments.map { argument in
            values.reduce(argument) { $0.replacing("{\($1.key)}", with: $1.value) }
        }
    }

    /// The `{name}` placeholders in an argument: lowercase letters and hyphens between braces
    /// (other braced text, such as JSON, is left alone).
    private static func names(in argument: String) -> [String] {
        argument.split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap { piece in
            guard let close = piece.firstIndex(of: "}") else { return nil }
            let name = piece[..<close]
            return !name.isEmpty && name.allSatisfy({ $0.isLowercase || $0 == "-" }) ? String(name) : nil
        }
    }
}
