/// The output a backend rotates when `--output` is not given, and why it was chosen (logged).
struct OutputChoice: Sendable, Equatable {
    /// One output as a compositor or X server lists it.
    struct Candidate: Sendable {
        var name: String
        /// Enabled and showing a picture.
        var active: Bool
    }

    var name: String
    var reason: String

    /// Connector names of built-in panels (laptops, tablets, phones), as the kernel names them.
    private static let builtInPrefixes = ["edp", "lvds", "dsi"]

    /// The built-in panel when one is active, else the first active output, else the first one;
    /// nil when `candidates` is empty. `source` names the query, for the reason.
    static func pick(from candidates: [Candidate], source: String) -> OutputChoice? {
        let listed = candidates.map(\.name).joined(separator: ", ")
        let active = candidates.filter(\.active)
        if let panel = active.first(where: { candidate in builtInPrefixes.contains { candidate.name.lowercased().hasPrefix($0) } }) {
            return OutputChoice(name: panel.name, reason: "the built-in panel among \(listed) (\(source))")
        }
        if let first = active.first {
            return OutputChoice(name: first.name, reason: "the first active output among \(listed) (\(source)); no built-in panel")
        }
        guard let first = candidates.first else { return nil }
        return OutputChoice(name: first.name, reason: "the first output among \(listed) (\(source)); none is active")
    }
}
