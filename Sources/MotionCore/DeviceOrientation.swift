/// The physical orientation of the device, like `UIDeviceOrientation`, decided from gravity.
///
/// Each state by which edge is up (gravity in G, device frame, gravity-vector sign):
/// - `portrait`: top edge up, gravity ≈ (0, −1, 0);
/// - `portraitUpsideDown`: bottom edge up, gravity ≈ (0, +1, 0);
/// - `landscapeLeft`: right edge (+x) up — turned a quarter counter-clockwise, as Apple's "home
///   button on the right" — gravity ≈ (−1, 0, 0);
/// - `landscapeRight`: left edge up, gravity ≈ (+1, 0, 0);
/// - `faceUp` / `faceDown`: lying flat, screen up (gravity ≈ (0, 0, −1)) or down;
/// - `unknown`: not decided yet.
/// Wire names are the case names.
public enum DeviceOrientation: String, Sendable, Hashable, Codable, CaseIterable {
    case unknown
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight
    case faceUp
    case faceDown

    /// iio-sensor-proxy's name for the same screen orientation (`normal`, `bottom-up`,
    /// `left-up`, `right-up`); flat and unknown are `undefined` there.
    public var iioSensorProxyName: String {
        switch self {
        case .portrait: return "normal"
        case .portraitUpsideDown: return "bottom-up"
        case .landscapeLeft: return "right-up"
        case .landscapeRight: return "left-up"
        case .unknown, .faceUp, .faceDown: return "undefined"
        }
    }

    /// The display rotation that keeps the picture upright in this orientation, for a panel whose
    /// natural orientation is portrait-up: the xrandr `--rotate` name and the Wayland
    /// `wl_output` transform (degrees counter-clockwise; GNOME's mutter maps iio-sensor-proxy's
    /// left-up to 90 and right-up to 270 the same way). Nil for flat and unknown: keep the
    /// current rotation.
    public var displayRotation: (xrandr: String, wayland: Int)? {
        switch self {
        case .portrait: return ("normal", 0)
        case .landscapeRight: return ("left", 90)
        case .portraitUpsideDown: return ("inverted", 180)
        case .landscapeLeft: return ("right", 270)
        case .unknown, .faceUp, .faceDown: return nil
        }
    }

    /// The gravity direction (unit, G, device frame) at the centre of this state; nil for unknown.
    public var gravity: Vector3? {
        switch self {
        case .unknown: return nil
        case .portrait: return Vector3(0, -1, 0)
        case .portraitUpsideDown: return Vector3(0, 1, 0)
        case .landscapeLeft: return Vector3(-1, 0, 0)
        case .landscapeRight: return Vector3(1, 0, 0)
        case .faceUp: return Vector3(0, 0, -1)
        case .faceDown: return Vector3(0, 0, 1)
        }
    }

    /// True for the four upright (screen-rotation) states.
    public var isUpright: Bool { [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight].contains(self) }
}
