/// Which device edge a heading is measured along, like Core Location's `headingOrientation`
/// (`CLDeviceOrientation`): the edge at the top of the interface as the user holds the device.
///
/// `portrait` (the default) is the device's top edge (+y); `portraitUpsideDown` the bottom
/// edge (−y); `landscapeLeft` (device turned a quarter counter-clockwise, top edge to the left)
/// the right edge (+x); `landscapeRight` the left edge (−x). Wire names are the case names.
public enum HeadingOrientation: String, Sendable, Hashable, Codable, CaseIterable {
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight

    /// The "top" edge as a device-frame unit vector.
    public var topEdge: Vector3 {
        switch self {
        case .portrait: return Vector3(0, 1, 0)
        case .portraitUpsideDown: return Vector3(0, -1, 0)
        case .landscapeLeft: return Vector3(1, 0, 0)
        case .landscapeRight: return Vector3(-1, 0, 0)
        }
    }
}
