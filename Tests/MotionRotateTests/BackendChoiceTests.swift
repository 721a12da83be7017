import Testing

@testable import MotionRotate

/// Which backend a session gets (`--backend auto`) and which output a backend turns without
/// `--output`.
@Suite("Backend and output choice")
struct BackendChoiceTests {
    @Test("the session's variables choose the backend, first match wins, and the reason names the variable")
    func detect() throws {
        let both = try BackendKind.detect(in: ["SWAYSOCK": "/run/sway.sock", "WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"])
        #expect(both.kind == .sway && both.reason == "SWAYSOCK is set")
        #expect(try BackendKind.detect(in: ["XDG_CURRENT_DESKTOP": "ubuntu:KDE", "WAYLAND_DISPLAY": "wayland-0"]).kind == .kde)
        #expect(try BackendKind.detect(in: ["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"]).kind == .wlrRandr)
        #expect(try BackendKind.detect(in: ["DISPLAY": ":0", "SWAYSOCK": ""]).kind == .x11)
    }

    @Test("GNOME and no graphical session are refused")
    func refused() {
        let gnome = #expect(throws: BackendError.self) {
            try BackendKind.detect(in: ["XDG_CURRENT_DESKTOP": "GNOME", "WAYLAND_DISPLAY": "wayland-0"])
        }
        #expect(gnome?.description.hasPrefix("GNOME rotates the screen itself") == true)
        let none = #expect(throws: BackendError.self) { try BackendKind.detect(in: [:]) }
        #expect(none?.description.hasPrefix("no graphical session found") == true)
    }

    @Test("the built-in panel when active, else the first active output, else the first; none from an empty list")
    func output() {
        typealias Candidate = OutputChoice.Candidate
        let docked = [Candidate(name: "DP-1", active: true), Candidate(name: "eDP-1", active: true)]
        #expect(OutputChoice.pick(from: docked, source: "xrandr")?.name == "eDP-1")
        let lidClosed = [Candidate(name: "eDP-1", active: false), Candidate(name: "HDMI-A-1", active: false), Candidate(name: "DP-2", active: true)]
        #expect(OutputChoice.pick(from: lidClosed, source: "xrandr")?.name == "DP-2")
        #expect(OutputChoice.pick(from: [Candidate(name: "HDMI-A-1", active: false), Candidate(name: "DP-2", active: false)], source: "swaymsg")
            == OutputChoice(name: "HDMI-A-1", reason: "the first output among HDMI-A-1, DP-2 (swaymsg); none is active"))
        #expect(OutputChoice.pick(from: [], source: "xrandr") == nil)
    }

    @Test("xrandr's listing: connected outputs only; one with a geometry is active")
    func xrandrOutputs() {
        let listing = """
            Screen 0: minimum 8 x 8, current 1920 x 1080, maximum 32767 x 32767
            eDP-1 connected primary 1920x1080+0+0 (normal left inverted right x axis y axis) 309mm x 174mm
               1920x1080     60.01*+
            HDMI-1 disconnected (normal left inverted right x axis y axis)
            DP-1 connected (normal left inverted right x axis y axis)
            """
        let outputs = X11Backend.outputs(in: listing)
        #expect(outputs.map(\.name) == ["eDP-1", "DP-1"])
        #expect(outputs.map(\.active) == [true, false])
    }
}
