import MotionCore

extension DetectorConfiguration {
    /// This configuration with a client's (or a configuration file's) detector options laid over
    /// it (``Overlay``), checked against every parameter's range
    /// (``DetectorConfiguration/ranges``). Throws `invalidValue` naming the key path under
    /// `path`: `detectors.shake.requiredReversals: expected 1 to 100, got -9e+18`.
    public func overlaid(with options: [String: JSONValue], path: String = "detectors") throws(ProtocolError) -> DetectorConfiguration {
        let result = try Overlay.apply(options, to: self, path: path)
        if let problem = result.problem {
            throw ProtocolError(.invalidValue, "\(path).\(problem.path): \(problem.message)")
        }
        return result
    }
}
