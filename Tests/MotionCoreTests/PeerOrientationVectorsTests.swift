import MotionCore
import Testing

/// iio-sensor-proxy's orientation and tilt test vectors (its src/test-orientation.c and the
/// accelerometer cases of tests/integration-test.py, tag 3.9.0), restated as facts: raw
/// readings, the scale, the mount matrix, and the names iio-sensor-proxy answers. Each runs
/// through the engine and the event detectors as the daemon runs them (no gyroscope), and the
/// result is read as the D-Bus face reads it (flat keeps the last upright name). Its test
/// accelerometer is no HID hub: read as a chip that reports the specific force.
@Suite("iio-sensor-proxy's orientation vectors")
struct PeerOrientationVectorsTests {
    /// The D-Bus face's values after each reading of `steps` is held for a second at 10 Hz,
    /// in order, from a fresh start: (AccelerometerOrientation, AccelerometerTilt).
    static func faceValues(_ steps: [Vector3], scale: Double, mountMatrix: String? = nil) throws -> [(String, String)] {
        let matrix = (try mountMatrix.map { try MountMatrix(parsing: $0) } ?? .identity).applied(for: .accelerometer, specificForce: true)
        let conversion = SampleConversion(kind: .accelerometer, scale: Vector3(scale, scale, scale), mountMatrix: matrix)
        var engine = MotionEngine()
        var detectors = MotionEventDetectors()
        var upright = "undefined", tilt = "undefined"
        var values: [(String, String)] = []
        var t = 0.0
        for raw in steps {
            for _ in 0..<10 {
                let sample = Sample(kind: .accelerometer, timestamp: t, vector: conversion.convert(raw: raw))
                engine.update(sample)
                for event in detectors.update(sample, engine: engine) {
                    switch event {
                    case .orientation(let o, _) where o.isUpright: upright = o.iioSensorProxyName
                    case .tilt(let now, _): tilt = now.iioSensorProxyName(specificForce: true)
                    default: break
                    }
                }
                t += 0.1
            }
            values.append((upright, tilt))
        }
        return values
    }

    /// 1 G in the unit test-orientation.c uses.
    static let oneG = 256.0

    @Test("the four axes, each from a fresh start (test_orientation)", arguments: [
        (Vector3(0, -oneG, 0), "normal"), (Vector3(-oneG, 0, 0), "right-up"),
        (Vector3(oneG, 0, 0), "left-up"), (Vector3(0, oneG, 0), "bottom-up"),
    ])
    func axes(reading: Vector3, expected: String) throws {
        #expect(try Self.faceValues([reading], scale: 9.81 / Self.oneG).map(\.0) == [expected])
    }

    @Test("near the 35° threshold, in sequence: portrait holds (test_orientation_threshold)")
    func threshold() throws {
        let steps = [Vector3(0, -Self.oneG, 0), Vector3(183, -Self.oneG, 0), Vector3(176, -Self.oneG, 0), Vector3(183, -Self.oneG, 0)]
        #expect(try Self.faceValues(steps, scale: 9.81 / Self.oneG).map(\.0) == ["normal", "normal", "normal", "normal"])
    }

    @Test("quirked real hardware through its mount matrix, each from a fresh start (test_mount_matrix_orientation)", arguments: [
        // Onda v975.
        (Vector3(523, 13, 5), 0.019163, "normal"), (Vector3(8, 521, -67), 0.019163, "right-up"),
        // Winbook TW100; the second is the tablet in landscape tilted back about 26°, gravity 31°
        // from the x axis in the screen plane.
        (Vector3(24, 0, -21), 0.306457, "normal"), (Vector3(15, -25, -14), 0.306457, "left-up"),
    ])
    func quirked(reading: Vector3, scale: Double, expected: String) throws {
        let values = try Self.faceValues([reading], scale: scale, mountMatrix: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        #expect(values.map(\.0) == [expected])
    }

    @Test("a device reading 26 G at rest, fractional raw values (test_iio_poll_accel)")
    func twentySixG() throws {
        let steps = [Vector3(0, -25.6, 0), Vector3(-25.6, 0, 0), Vector3(-25.6, 0, -25.6), Vector3(-25.6, 0, 72.4)]
        let values = try Self.faceValues(steps, scale: 10)
        #expect(values.map(\.0) == ["normal", "right-up", "right-up", "right-up"])
        #expect(values.map(\.1) == ["vertical", "vertical", "tilted-down", "face-up"])
    }

    @Test("a device reading 26 G at rest through a micro scale (test_iio_scale_decimal_separator2)")
    func microScale() throws {
        let values = try Self.faceValues([Vector3(0, -256_000_000, 0), Vector3(-256_000_000, 0, 0)], scale: 0.000001)
        #expect(values.map(\.0) == ["normal", "right-up"])
    }
}

@Suite("GravityScale")
struct GravityScaleTests {
    @Test("a rest far from 1 G (three readings over 0.2 s) becomes the accelerometer's 1 G, once; a rest at 1 G puts it back")
    func learns() {
        var scale = GravityScale()
        var t = 0.0
        func feed(_ v: Vector3) -> Bool {
            defer { t += 0.1 }
            return scale.update(v, at: t)
        }
        #expect(scale.oneG == 1 && scale.isPlausible)
        // Two readings are not a rest yet; the third, 0.2 s after the first, is.
        #expect(!feed(Vector3(0, -26.1, 0)))
        #expect(!feed(Vector3(0, -26.1, 0)))
        #expect(feed(Vector3(0, -26.1, 0)))
        #expect(abs(scale.oneG - 26.1) < 1e-9 && !scale.isPlausible)
        // More of the same (with noise within 5 %): no change, no second report.
        #expect(!feed(Vector3(0.3, -26.0, 0.2)))
        #expect(!feed(Vector3(0, -26.2, 0)))
        // Back at 1 G at rest (a driver fixed at runtime): 1 again.
        for _ in 0..<2 { #expect(!feed(Vector3(0, -1, 0))) }
        #expect(feed(Vector3(0, -1, 0)))
        #expect(scale.oneG == 1)
    }

    @Test("motion never rescales a good device: a 100 ms peak, a fall, a shake; plausible rests leave it at 1; bad input ends a stretch")
    func motion() {
        var scale = GravityScale()
        var t = 0.0
        func feed(_ v: Vector3) -> Bool {
            defer { t += 0.01 }
            return scale.update(v, at: t)
        }
        // A shake at 100 Hz: 3 G peaks lasting 100 ms each way.
        for i in 0..<300 { #expect(!feed(Vector3(0, (i / 10) % 2 == 0 ? 3 : -3, 0))) }
        // A fall: about zero, with noise.
        for i in 0..<50 { #expect(!feed(Vector3(0.01 * Double(i % 3), -0.01 * Double(i % 2), 0.005))) }
        for _ in 0..<100 { #expect(!feed(Vector3(0, -1.8, 0))) }
        #expect(!feed(Vector3(.nan, -30, 0)))
        #expect(scale.oneG == 1)
    }

    @Test("the engine reports a rescale once and feeds the fusion readings in the device's 1 G")
    func engine() {
        var engine = MotionEngine()
        var events: [MotionEngine.Event] = []
        for i in 0..<20 {
            if let event = engine.update(Sample(kind: .accelerometer, timestamp: Double(i) * 0.1, vector: Vector3(0, 0, -26.1))) { events.append(event) }
        }
        // Another implausible rest (36 G) is taken without a second report; 1 G is reported.
        for i in 20..<40 {
            if let event = engine.update(Sample(kind: .accelerometer, timestamp: Double(i) * 0.1, vector: Vector3(0, 25.6, -25.6))) { events.append(event) }
        }
        #expect(abs(engine.gravityScale.oneG - 36.2) < 0.01)
        for i in 40..<60 {
            if let event = engine.update(Sample(kind: .accelerometer, timestamp: Double(i) * 0.1, vector: Vector3(0, 0, -1))) { events.append(event) }
        }
        guard events.count == 2, case .accelerometerScale(let first) = events[0] else {
            Issue.record("\(events)")
            return
        }
        #expect(abs(first - 26.1) < 1e-9)
        #expect(events[1] == .accelerometerScale(oneG: 1))
        #expect(engine.gravityScale.oneG == 1)
    }
}
