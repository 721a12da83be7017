/// Core Location's `headingFilter`: passes a heading only when it differs from the last one
/// passed by at least `minimumChange` degrees (across north: 359° → 1° is a 2° change). Zero
/// is `kCLHeadingFilterNone` (every heading passes); Core Location's default is 1°. One filter
/// per subscriber, since each chooses its own.
public struct HeadingFilter: Sendable, Hashable, Codable {
    /// Degrees; 0 lets every heading through.
    public var minimumChange: Double
    /// The last heading let through, degrees.
    public private(set) var last: Double?

    public init(minimumChange: Double = 1) {
        self.minimumChange = max(0, minimumChange)
    }

    /// True (and remembered) when `heading` should be delivered.
    public mutating func admit(_ heading: Double) -> Bool {
        guard heading.isFinite else { return false }
        if let last {
            let change = abs((heading - last).remainder(dividingBy: 360))
            guard change >= minimumChange else { return false }
        }
        last = heading
        return true
    }
}
