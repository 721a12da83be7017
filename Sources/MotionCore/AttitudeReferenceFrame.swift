/// The reference frames an attitude can be given in, an option set like
/// `CMAttitudeReferenceFrame` (bits 1, 2, 4, 8). In every frame Z points up; X is:
/// - ``xArbitraryZVertical``: wherever the device's +x pointed horizontally when updates started
///   (gyroscope and accelerometer only; the yaw drifts);
/// - ``xArbitraryCorrectedZVertical``: the same start, held there by the magnetometer;
/// - ``xMagneticNorthZVertical``: magnetic north (so Y points west);
/// - ``xTrueNorthZVertical``: true north (needs the declination, from a location or configured).
public struct AttitudeReferenceFrame: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let xArbitraryZVertical = AttitudeReferenceFrame(rawValue: 1)
    public static let xArbitraryCorrectedZVertical = AttitudeReferenceFrame(rawValue: 2)
    public static let xMagneticNorthZVertical = AttitudeReferenceFrame(rawValue: 4)
    public static let xTrueNorthZVertical = AttitudeReferenceFrame(rawValue: 8)

    /// The single frames, in bit order, with their wire names (the Swift case names).
    public static let named: [(frame: AttitudeReferenceFrame, name: String)] = [
        (.xArbitraryZVertical, "xArbitraryZVertical"),
        (.xArbitraryCorrectedZVertical, "xArbitraryCorrectedZVertical"),
        (.xMagneticNorthZVertical, "xMagneticNorthZVertical"),
        (.xTrueNorthZVertical, "xTrueNorthZVertical"),
    ]

    /// The single frame with this wire name.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.frame
    }

    /// Wire names of the frames in the set, in bit order.
    public var names: [String] { Self.named.filter { contains($0.frame) }.map(\.name) }

    /// Frames whose X axis points to a north (heading is defined in them).
    public var isNorthReferenced: Bool { !isDisjoint(with: [.xMagneticNorthZVertical, .xTrueNorthZVertical]) }

    public var description: String { names.joined(separator: "|") }
}
