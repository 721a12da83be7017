import MotionCore
import Testing

@testable import MotionRotate

/// Each upright orientation's rotation in every backend's spelling (ScreenRotation's table),
/// and the X11 touch matrix that goes with it.
@Suite("Screen rotation: names, transforms, touch matrices")
struct ScreenRotationTests {
    @Test("the four upright orientations: xrandr name, wl_output degrees, sway's name")
    func upright() throws {
        let table: [(DeviceOrientation, xrandr: String, degrees: Int, wayland: String)] = [
            (.portrait, "normal", 0, "normal"), (.landscapeRight, "left", 90, "90"),
            (.portraitUpsideDown, "inverted", 180, "180"), (.landscapeLeft, "right", 270, "270"),
        ]
        for (orientation, xrandr, degrees, wayland) in table {
            let rotation = try #require(ScreenRotation(orientation))
            #expect(rotation.orientation == orientation)
            #expect(rotation.xrandrName == xrandr, "\(orientation)")
            #expect(rotation.degrees == degrees, "\(orientation)")
            #expect(rotation.waylandName == wayland, "\(orientation)")
        }
    }

    @Test("flat and unknown have no rotation: they keep the current one")
    func notUpright() {
        #expect(ScreenRotation(.faceUp) == nil)
        #expect(ScreenRotation(.faceDown) == nil)
        #expect(ScreenRotation(.unknown) == nil)
    }

    /// Where the touch matrix puts a touch at (x, y), both 0…1 across the panel as built.
    static func touch(_ x: Int, _ y: Int, _ m: [Int]) -> [Int] {
        [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]]
    }

    @Test("the X11 touch matrix puts the panel's top-left corner where the turned picture has it, and is a rotation",
          arguments: [(DeviceOrientation.portrait, [0, 0]), (.landscapeRight, [1, 0]), (.portraitUpsideDown, [1, 1]), (.landscapeLeft, [0, 1])])
    func touchMatrix(orientation: DeviceOrientation, topLeft: [Int]) throws {
        let matrix = X11Backend.matrix(try #require(ScreenRotation(orientation)))
        #expect(Self.touch(0, 0, matrix) == topLeft)
        #expect(Array(matrix[6...]) == [0, 0, 1])
        // A proper rotation of the unit square: determinant +1.
        #expect(matrix[0] * matrix[4] - matrix[1] * matrix[3] == 1)
    }

    @Test("--apply takes motiond's, iio-sensor-proxy's and xrandr's names; flat is refused")
    func applyArgument() {
        #expect(OrientationArgument(argument: "landscapeRight")?.rotation.orientation == .landscapeRight)
        #expect(OrientationArgument(argument: "left-up")?.rotation.orientation == .landscapeRight)
        #expect(OrientationArgument(argument: "left")?.rotation.orientation == .landscapeRight)
        #expect(OrientationArgument(argument: "inverted")?.rotation.orientation == .portraitUpsideDown)
        #expect(OrientationArgument(argument: "faceUp") == nil)
    }
}
