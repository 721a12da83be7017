import Foundation
import Testing
import MotionCore

/// The orientation detector on canonical poses and on noisy held poses near its boundaries.
@Suite("OrientationDetector")
struct OrientationDetectorTests {
    static let deg = Double.pi / 180

    /// Gravity for an upright device whose screen-plane gravity angle is `phi` degrees (0 portrait,
    /// 90 landscapeLeft) and whose screen normal is `tilt` degrees from vertical (90 = upright).
    static func gravity(phi: Double, tilt: Double = 90, faceUp: Bool = true) -> Vector3 {
        let inPlane = sin(tilt * deg)
        return Vector3(-sin(phi * deg) * inPlane, -cos(phi * deg) * inPlane, (faceUp ? -1 : 1) * cos(tilt * deg))
    }

    /// Feeds `seconds` at 100 Hz of `gravity` plus sensor noise and hand tremor (2 % at 8 Hz);
    /// returns the changes reported with their times.
    static func hold(_ detector: inout OrientationDetector, _ gravity: Vector3, from start: Double = 0, seconds: Double,
                     seed: UInt64 = 1) -> [(Double, DeviceOrientation)] {
        var random = SeededRandom(seed: seed)
        var changes: [(Double, DeviceOrientation)] = []
        for i in 0..<Int(seconds * 100) {
            let t = start + Double(i) * 0.01
            let tremor = Vector3(sin(2 * .pi * 8 * t), cos(2 * .pi * 7 * t), sin(2 * .pi * 9 * t)) * 0.02
            if let change = detector.update(gravity: gravity + tremor + random.gaussianVector(sigma: 0.01), at: t) {
                changes.append((t, change))
            }
        }
        return changes
    }

    @Test("each canonical pose gives its state, after the settle time", arguments: [
        DeviceOrientation.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown,
    ])
    func canonicalPoses(state: DeviceOrientation) throws {
        var detector = OrientationDetector()
        let changes = Self.hold(&detector, try #require(state.gravity), seconds: 1)
        #expect(changes.map(\.1) == [state])
        // Reported 100 ms after the pose is first seen (settle time), within the 150 ms target.
        #expect(try #require(changes.first).0 <= 0.11)
        #expect(detector.orientation == state)
    }

    @Test("UIKit names map to iio-sensor-proxy's")
    func names() {
        #expect(DeviceOrientation.allCases.map(\.iioSensorProxyName)
            == ["undefined", "normal", "bottom-up", "right-up", "left-up", "undefined", "undefined"])
    }

    @Test("display rotations: left edge up is xrandr left / wl_output 90 (mutter's left-up), flat keeps the rotation")
    func displayRotations() {
        let rotations = DeviceOrientation.allCases.map { $0.displayRotation.map { "\($0.xrandr)/\($0.wayland)" } ?? "keep" }
        #expect(rotations == ["keep", "normal/0", "inverted/180", "right/270", "left/90", "keep", "keep"])
    }

    /// Settles the detector in `start` (exact vector), then holds `phi` for 0.5 s; returns the state.
    static func after(_ start: DeviceOrientation, phi: Double, tilt: Double = 90, faceUp: Bool = true) -> DeviceOrientation {
        var detector = OrientationDetector()
        for i in 0..<50 { _ = detector.update(gravity: start.gravity!, at: Double(i) * 0.01) }
        for i in 50..<100 { _ = detector.update(gravity: Self.gravity(phi: phi, tilt: tilt, faceUp: faceUp), at: Double(i) * 0.01) }
        return detector.orientation
    }

    @Test("boundaries with exact vectors, both ways: an axis beyond 35° (whole degrees) and the other not; the previous state between")
    func exactBoundaries() {
        // Upright, from portrait toward landscapeLeft (φ = 90°): y is 90° − φ from horizontal,
        // x φ. Portrait kept through the diagonal zone (both beyond 35°), landscape once y is
        // within 35° (rounded: φ 54.6°).
        #expect(Self.after(.portrait, phi: 54.4) == .portrait)
        #expect(Self.after(.portrait, phi: 54.6) == .landscapeLeft)
        // Back from landscapeLeft: kept down to 35.6°, portrait from 35.4°.
        #expect(Self.after(.landscapeLeft, phi: 35.6) == .landscapeLeft)
        #expect(Self.after(.landscapeLeft, phi: 35.4) == .portrait)
        // The other side and the other states.
        #expect(Self.after(.portrait, phi: -54.4) == .portrait)
        #expect(Self.after(.portrait, phi: -54.6) == .landscapeRight)
        #expect(Self.after(.portraitUpsideDown, phi: 125.6) == .portraitUpsideDown)
        #expect(Self.after(.portraitUpsideDown, phi: 125.4) == .landscapeLeft)
        #expect(Self.after(.landscapeRight, phi: -144.4) == .landscapeRight)
        #expect(Self.after(.landscapeRight, phi: -144.6) == .portraitUpsideDown)
        // Flat: enter within 25° of vertical, leave beyond 35° for the upright state proposed there.
        #expect(Self.after(.portrait, phi: 0, tilt: 26) == .portrait)
        #expect(Self.after(.portrait, phi: 0, tilt: 24) == .faceUp)
        #expect(Self.after(.faceUp, phi: 0, tilt: 34) == .faceUp)
        #expect(Self.after(.faceUp, phi: 0, tilt: 36) == .portrait)
        #expect(Self.after(.faceUp, phi: 90, tilt: 36) == .landscapeLeft)
    }

    @Test("tilt follows iio-sensor-proxy's thresholds on the screen normal's elevation")
    func tilt() {
        let cases: [(Double, DeviceTilt)] = [(90, .vertical), (71, .vertical), (60, .tiltedUp), (25, .tiltedUp), (15, .faceUp), (0, .faceUp)]
        for (fromFlat, expected) in cases {
            #expect(DeviceTilt(gravity: Self.gravity(phi: 0, tilt: fromFlat)) == expected, "\(fromFlat)°")
        }
        #expect(DeviceTilt(gravity: Self.gravity(phi: 0, tilt: 60, faceUp: false)) == .tiltedDown)
        #expect(DeviceTilt(gravity: Vector3(0, 0, 1)) == .faceDown)
        #expect(DeviceTilt(gravity: .zero) == nil)
        // Whole degrees, as iio-sensor-proxy: 20.4° is vertical, 20.6° tilted.
        #expect(DeviceTilt(gravity: Self.gravity(phi: 0, tilt: 90 - 20.4)) == .vertical)
        #expect(DeviceTilt(gravity: Self.gravity(phi: 0, tilt: 90 - 20.6)) == .tiltedUp)
        // iio-sensor-proxy takes the kernel's z > 0 as facing up: on a HID hub's accelerometer
        // (the gravity vector) up and down swap in its names; on a chip that reports the specific
        // force, whose z motiond negated, they agree.
        #expect(DeviceTilt.allCases.map { $0.iioSensorProxyName(specificForce: false) } == ["vertical", "tilted-down", "tilted-up", "face-down", "face-up"])
        #expect(DeviceTilt.allCases.map { $0.iioSensorProxyName(specificForce: true) } == ["vertical", "tilted-up", "tilted-down", "face-up", "face-down"])
    }

    @Test("held still near (inside) a boundary: no spurious change", arguments: [40.0, -40.0, 50.0])
    func nearBoundary(phi: Double) {
        var detector = OrientationDetector()
        #expect(Self.hold(&detector, Self.gravity(phi: 0), seconds: 1).map(\.1) == [.portrait])
        // Tipped 40–50° toward landscape (in the diagonal zone, where the previous state holds) for 30 s.
        #expect(Self.hold(&detector, Self.gravity(phi: phi), from: 1, seconds: 30, seed: 2).isEmpty)
        #expect(detector.orientation == .portrait)
    }

    @Test("the diagonal dead zone decides nothing from unknown")
    func deadZone() {
        var detector = OrientationDetector()
        #expect(Self.hold(&detector, Self.gravity(phi: 45), seconds: 10).isEmpty)
        #expect(detector.orientation == .unknown)
    }

    @Test("slow tilts within one state change nothing; past the boundary one change")
    func slowTilts() {
        var detector = OrientationDetector()
        var changes: [DeviceOrientation] = []
        // Portrait, tilted back from upright (90°) to 60° from flat and forth, over 20 s, then turned to landscape.
        for i in 0..<2000 {
            let t = Double(i) * 0.01
            let tilt = 75 + 15 * cos(2 * .pi * t / 10)
            if let c = detector.update(gravity: Self.gravity(phi: 10 * sin(t), tilt: tilt), at: t) { changes.append(c) }
        }
        #expect(changes == [.portrait])
        for i in 0..<300 {
            let t = 20 + Double(i) * 0.01
            if let c = detector.update(gravity: Self.gravity(phi: min(90, Double(i) * 0.5)), at: t) { changes.append(c) }
        }
        #expect(changes == [.portrait, .landscapeLeft])
    }

    @Test("flat hysteresis: flat from 25° off vertical, upright again only past 35°, flat again only within 25°; no flapping at either edge")
    func flatHysteresis() {
        var detector = OrientationDetector()
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 20), seconds: 1).map(\.1) == [.faceUp])
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 31), from: 1, seconds: 5).isEmpty)
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 45), from: 6, seconds: 1).map(\.1) == [.portrait])
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 29), from: 7, seconds: 5).isEmpty)
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 20, faceUp: false), from: 12, seconds: 1).map(\.1) == [.faceDown])
        // Held (tremor and noise: about ±1.5°) at each edge of the band for 30 s: one change at most.
        for (tilt, seed) in [(35.0, UInt64(3)), (25.0, UInt64(4))] {
            var held = OrientationDetector()
            let changes = Self.hold(&held, Self.gravity(phi: 0, tilt: 60), seconds: 1) + Self.hold(&held, Self.gravity(phi: 0, tilt: tilt), from: 1, seconds: 30, seed: seed)
            #expect(changes.count <= 2, "at \(tilt)°: \(changes.map(\.1))")
        }
    }

    @Test("iio-sensor-proxy's keep-the-previous zones: the last upright state holds where both axes or neither are beyond 35° (vectors from real hardware)")
    func previousHolds() {
        // Held in portrait and tilted back to about 49° from flat, after landscapeLeft.
        #expect(Self.after(.landscapeLeft, phi: 0, tilt: 49) == .portrait)
        // Gravity mostly along +x, 31° from the x axis in the screen plane, the screen tilted
        // back 26°: landscapeRight (left-up) from any state, and from a fresh start.
        for start in [DeviceOrientation.portrait, .landscapeLeft, .portraitUpsideDown] {
            var detector = OrientationDetector()
            for i in 0..<50 { _ = detector.update(gravity: start.gravity!, at: Double(i) * 0.01) }
            #expect(detector.orientation == start)
            for i in 50..<100 { _ = detector.update(gravity: Vector3(0.78, -0.47, -0.44), at: Double(i) * 0.01) }
            #expect(detector.orientation == .landscapeRight, "from \(start)")
        }
        var fresh = OrientationDetector()
        for i in 0..<50 { _ = fresh.update(gravity: Vector3(0.78, -0.47, -0.44), at: Double(i) * 0.01) }
        #expect(fresh.orientation == .landscapeRight)
        // The far diagonal of the current state (both axes beyond 35°): it holds, as in
        // iio-sensor-proxy (the D-Bus face must show what it shows).
        #expect(Self.after(.landscapeLeft, phi: -45) == .landscapeLeft)
        // Tilted back (30° off vertical: no axis beyond 35°) toward another quarter: the upright
        // state holds, as in iio-sensor-proxy…
        #expect(Self.after(.landscapeLeft, phi: -90, tilt: 30) == .landscapeLeft)
        // …and after a flat state, lifted into such a zone, the last upright state comes back.
        var detector = OrientationDetector()
        #expect(Self.hold(&detector, Self.gravity(phi: 0), seconds: 1).map(\.1) == [.portrait])
        #expect(Self.hold(&detector, Self.gravity(phi: 0, tilt: 10), from: 1, seconds: 1).map(\.1) == [.faceUp])
        #expect(Self.hold(&detector, Self.gravity(phi: 45, tilt: 45), from: 2, seconds: 1).map(\.1) == [.portrait])
        // A fresh detector lying flat and lifted into such a zone stays flat (no upright state known).
        var flat = OrientationDetector()
        #expect(Self.hold(&flat, Self.gravity(phi: 0, tilt: 10), seconds: 1).map(\.1) == [.faceUp])
        #expect(Self.hold(&flat, Self.gravity(phi: 45, tilt: 45), from: 1, seconds: 1).isEmpty)
    }

    @Test("no decision while accelerating or turning fast, or on bad input")
    func noDecision() {
        var detector = OrientationDetector()
        for i in 0..<100 {
            let t = Double(i) * 0.01
            #expect(detector.update(gravity: Vector3(0, -1, 0), at: t, accelerating: true) == nil)
            #expect(detector.update(gravity: Vector3(0, -1, 0), at: t, rotationRate: 3) == nil)
            #expect(detector.update(gravity: Vector3(.nan, -1, 0), at: t) == nil)
        }
        #expect(detector.orientation == .unknown)
    }

    @Test("gravity from the accelerometer alone: low-passed, and flagged while accelerating")
    func accelerationGravity() throws {
        var gravity = AccelerationGravity()
        gravity.update(Vector3(0, -1, 0), at: 0)
        gravity.update(Vector3(-1, 0, 0), at: 0.2) // one τ later: 63 % of the way
        let g = try #require(gravity.gravity)
        #expect(abs(g.x + (1 - exp(-1))) < 1e-12 && abs(g.y + exp(-1)) < 1e-12)
        #expect(!gravity.accelerating)
        gravity.update(Vector3(0, -1.6, 0), at: 0.21)
        #expect(gravity.accelerating)
    }
}

/// The still path: readings that lie still are gravity, reported without the settle wait.
@Suite("OrientationDetector: still readings")
struct OrientationStillTests {
    /// A device lying portrait at rest, then set down landscape at t = 1 s; readings every
    /// `period` seconds from `MotionEventDetectors` (no gyroscope: the low-pass path).
    static func step(period: Double, configuration: DetectorConfiguration = DetectorConfiguration()) throws -> Double {
        var detectors = MotionEventDetectors(configuration: configuration)
        let engine = MotionEngine()
        var reported: Double?
        for i in 0..<Int(3 / period) where reported == nil {
            let t = Double(i) * period
            let reading = t < 1 ? Vector3(0, -1, 0) : Vector3(1, 0, 0)
            for event in detectors.update(Sample(kind: .accelerometer, timestamp: t, vector: reading), engine: engine) {
                if case .orientation(.landscapeRight, let at) = event { reported = at }
            }
        }
        return try #require(reported) - 1
    }

    @Test("a step from rest is reported once three still readings span 40 ms, not after the low-pass and the settle time")
    func stepFromRest() throws {
        // 50 Hz: readings at 1.00, 1.02, 1.04 s.
        let latency = try Self.step(period: 0.02)
        #expect(latency >= 0.04 - 1e-9 && latency < 0.05, "\(latency)")
    }

    @Test("with stillTime at or above the settle time the old wait stands (low-pass, then 100 ms)")
    func stillPathOff() throws {
        var configuration = DetectorConfiguration()
        configuration.orientation.stillTime = 10
        let latency = try Self.step(period: 0.02, configuration: configuration)
        #expect(latency > 0.25, "\(latency)")
    }

    @Test("readings that keep moving get no still path: the settle time applies")
    func moving() {
        var detector = OrientationDetector()
        // A device held landscape while it shakes by 0.3 G: never still, so 100 ms of settle.
        var reported: Double?
        for i in 0..<100 {
            let t = Double(i) * 0.01
            let g = Vector3(1, 0, i % 2 == 0 ? 0.3 : -0.3)
            if detector.update(gravity: g, at: t, still: false) != nil, reported == nil { reported = t }
        }
        #expect(reported.map { abs($0 - 0.1) < 1e-9 } == true, "\(String(describing: reported))")
    }
}
