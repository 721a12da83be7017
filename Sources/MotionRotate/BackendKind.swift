import ArgumentParser

/// The `--backend` choices; `auto` detects the running session from its environment.
enum BackendKind: String, CaseIterable, Sendable, ExpressibleByArgument {
    case auto
    case sway
    case wlrRandr = "wlr-randr"
    case hyprland
    case kde
    case x11
    case command

    /// The session's backend, first match wins, and the variable that told: `SWAYSOCK` (sway),
    /// `HYPRLAND_INSTANCE_SIGNATURE` (Hyprland), `XDG_CURRENT_DESKTOP` containing KDE (Plasma,
    /// Wayland or X11), `WAYLAND_DISPLAY` (another wlroots compositor), `DISPLAY` (X11). GNOME is
    /// refused: mutter rotates the screen itself and has no outside interface for it.
    static func detect(in environment: [String: String]) throws(BackendError) -> (kind: BackendKind, reason: String) {
        let set = { (name: String) in !(environment[name] ?? "").isEmpty }
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.uppercased() }
        if set("SWAYSOCK") { return (.sway, "SWAYSOCK is set") }
        if set("HYPRLAND_INSTANCE_SIGNATURE") { return (.hyprland, "HYPRLAND_INSTANCE_SIGNATURE is set") }
        if desktops.contains("KDE") { return (.kde, "XDG_CURRENT_DESKTOP names KDE") }
        if desktops.contains("GNOME") {
            throw BackendError("GNOME rotates the screen itself (with iio-sensor-proxy); for anything else choose --backend or --command")
        }
        if set("WAYLAND_DISPLAY") { return (.wlrRandr, "WAYLAND_DISPLAY is set (and no sway, Hyprland or KDE)") }
        if set("DISPLAY") { return (.x11, "DISPLAY is set (and no Wayland session)") }
        throw BackendError("no graphical session found (none of SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE, WAYLAND_DISPLAY, DISPLAY is set); choose --backend")
    }
}
