import MotionCore

/// The display rotation that keeps the picture upright in one of the four upright device
/// orientations, spelled in each backend's own convention.
///
/// What each orientation means physically is docs/EVENTS.md's contract
/// (`DeviceOrientation.displayRotation`, for a panel whose natural orientation is portrait-up);
/// the backends only name the same four rotations differently:
///
/// | orientation | edge up | xrandr, KDE | sway, wlr-randr | Hyprland | iio-sensor-proxy |
/// |---|---|---|---|---|---|
/// | `portrait` | top | `normal`, `none` | `normal` | `0` | `normal` |
/// | `landscapeRight` | left | `left` | `90` | `1` | `left-up` |
/// | `portraitUpsideDown` | bottom | `inverted` | `180` | `2` | `bottom-up` |
/// | `landscapeLeft` | right | `right` | `270` | `3` | `right-up` |
///
/// xrandr's and KDE's `left` turn the picture a quarter counter-clockwise to make up for a device
/// turned a quarter clockwise (its left edge up). That is the `wl_output` transform 90 ("90
/// degrees counter-clockwise" in wayland.xml; sway's manual says the same turn of the panel
/// "is performed clockwise"), which sway and wlr-randr take by its degrees and Hyprland by its
/// enum value (degrees / 90). GNOME's mutter (left-up → 90) and rot8 (left → `_90` and xrandr
/// `left`) pair them the same way. The touch matrices for X11 are in ``X11Backend``.
struct ScreenRotation: Sendable, Equatable {
    /// The device orientation this rotation is for (one of the four upright ones).
    let orientation: DeviceOrientation
    /// xrandr's `--rotate` name: `normal`, `left`, `inverted` or `right`.
    let xrandrName: String
    /// The `wl_output` transform: the picture's turn in degrees counter-clockwise (0, 90, 180, 270).
    let degrees: Int

    /// Nil for flat and unknown orientations: they keep the current rotation.
    init?(_ orientation: DeviceOrientation) {
        guard let rotation = orientation.displayRotation else { return nil }
        self.orientation = orientation
        xrandrName = rotation.xrandr
        degrees = rotation.wayland
    }

    /// The `wl_output` transform as sway and wlr-randr write it: `normal`, `90`, `180`, `270`.
    var waylandName: String { degrees == 0 ? "normal" : String(degrees) }
}
