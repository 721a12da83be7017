import FoundationEssentials

/// A `*_available` attribute: a discrete list (`"12.5 26 52 104"`) or a range
/// (`"[min step max]"`), as the IIO ABI prints them.
public enum AvailableValues: Sendable, Hashable, Codable, CustomStringConvertible {
    case list([Double])
    case range(min: Double, step: Double, max: Double)

    /// Parses the kernel text; `nil` when it is neither form.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
            let parts = trimmed.dropFirst().dropLast().split(whereSeparator: \.isWhitespace).compactMap { SysfsNumber.parse(String($0)) }
            guard parts.count == 3, parts[1] > 0, parts[0] <= parts[2] else { return nil }
            self = .range(min: parts[0], step: parts[1], max: parts[2])
        } else {
            let tokens = trimmed.split(whereSeparator: \.isWhitespace)
            let values = tokens.compactMap { SysfsNumber.parse(String($0)) }
            guard !values.isEmpty, values.count == tokens.count else { return nil }
            self = .list(values)
        }
    }

    /// The value to use for a wanted rate: the smallest positive value at or above `wanted`,
    /// else the largest available (the hardware cannot go faster).
    public func choose(atLeast wanted: Double) -> Double {
        switch self {
        case .list(let values):
            let positive = values.filter { $0 > 0 }.sorted()
            return positive.first(where: { $0 >= wanted - 1e-9 }) ?? positive.last ?? wanted
        case .range(let min, let step, let max):
            let steps = ((wanted - min) / step).rounded(.up)
            return Swift.min(max, Swift.max(min, min + Swift.max(0, steps) * step))
        }
    }

    public var description: String {
        switch self {
        case .list(let values): return values.map(SysfsNumber.format).joined(separator: " ")
        case .range(let min, let step, let max): return "[\(SysfsNumber.format(min)) \(SysfsNumber.format(step)) \(SysfsNumber.format(max))]"
        }
    }
}
