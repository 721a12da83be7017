/// How trustworthy a calibrated magnetic field (and so a north-referenced heading) is, ordered
/// like `CMMagneticFieldCalibrationAccuracy`: uncalibrated < low < medium < high. Raw values
/// are Core Motion's (−1…2); wire names are the case names.
public enum MagneticFieldCalibrationAccuracy: Int, Sendable, Hashable, Codable, Comparable, CaseIterable, CustomStringConvertible {
    case uncalibrated = -1
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The wire name (`uncalibrated`, `low`, `medium`, `high`).
    public var description: String {
        switch self {
        case .uncalibrated: return "uncalibrated"
        case .low: return "low"
        case .medium: return "medium"
        case .high: return "high"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}
