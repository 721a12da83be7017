import Foundation
import Testing
import MotionCore

/// The calibrator on synthetic magnetometer data with known hard and soft iron.
@Suite("MagnetometerCalibrator")
struct MagnetometerCalibratorTests {
    /// Earth's field in the reference frame: 48 µT, dip 60° (north, down).
    static let earth = Vector3(48 * cos(Double.pi / 3), 0, -48 * sin(Double.pi / 3))
    static let offset = Vector3(25, -40, 12)
    /// Symmetric, semi-axis ratio about 1.25.
    static let softIron = Matrix3(rowMajor: [1.12, 0.06, -0.04, 0.06, 0.93, 0.05, -0.04, 0.05, 1.04])
    static let rate = 50.0 // Hz

    /// Ordinary motion: turning about three axes at unrelated rates (up to 50 °/s), so the field
    /// direction in the device frame wanders over most of the sphere in about a minute.
    static func attitude(_ t: Double) -> Quaternion {
        Quaternion(axis: Vector3(0, 0, 1), angle: 0.9 * t)
            * Quaternion(axis: Vector3(1, 0, 0), angle: 0.63 * t)
            * Quaternion(axis: Vector3(0, 1, 0), angle: 0.41 * t)
    }

    /// Raw readings: distorted field plus 0.5 µT Gaussian noise per axis, at `rate` from `start`.
    static func samples(from start: Double, seconds: Double, offset: Vector3 = offset, softIron: Matrix3 = softIron, seed: UInt64 = 1,
                        attitude: (Double) -> Quaternion = attitude) -> [(raw: Vector3, time: Double)] {
        var random = SeededRandom(seed: seed)
        return (0..<Int(seconds * rate)).map { i in
            let t = start + Double(i) / rate
            let device = attitude(t).inverse.rotate(earth)
            return (softIron * device + offset + random.gaussianVector(sigma: 0.5), t)
        }
    }

    static func feed(_ calibrator: inout MagnetometerCalibrator, _ samples: [(raw: Vector3, time: Double)]) {
        for sample in samples { calibrator.update(sample.raw, at: sample.time) }
    }

    /// Largest relative deviation of the calibrated magnitude from the calibration's field
    /// strength, over noise-free readings from 500 directions spread over the sphere.
    static func magnitudeError(_ calibration: MagnetometerCalibration, offset: Vector3 = offset) -> Double {
        let n = 500
        return (0..<n).map { i in
            // Fibonacci sphere.
            let z = 1 - 2 * (Double(i) + 0.5) / Double(n)
            let phi = Double(i) * Double.pi * (3 - 5.0.squareRoot())
            let r = (1 - z * z).squareRoot()
            let raw = softIron * (Vector3(r * cos(phi), r * sin(phi), z) * earth.norm) + offset
            return abs(calibration.apply(raw).norm / calibration.fieldStrength - 1)
        }.max()!
    }

    @Test("ordinary motion: offset within 1 µT and calibrated magnitude constant within 2 %")
    func converges() {
        var calibrator = MagnetometerCalibrator()
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120))
        #expect(calibrator.accuracy == .high)
        #expect((calibrator.calibration.offset - Self.offset).norm < 1, "offset \(calibrator.calibration.offset)")
        #expect(Self.magnitudeError(calibrator.calibration) < 0.02)
        #expect(calibrator.state.coverage >= 20)
    }

    @Test("a hard iron three times Earth's field is learned as well")
    func largeHardIron() {
        var calibrator = MagnetometerCalibrator()
        let offset = Vector3(150, -80, 60)
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120, offset: offset))
        #expect(calibrator.accuracy == .high)
        #expect((calibrator.calibration.offset - offset).norm < 1, "offset \(calibrator.calibration.offset)")
        #expect(Self.magnitudeError(calibrator.calibration, offset: offset) < 0.02)
    }

    @Test("accuracy rises uncalibrated → low → medium → high; the figure-eight hint clears")
    func progression() {
        var calibrator = MagnetometerCalibrator()
        #expect(calibrator.accuracy == .uncalibrated)
        #expect(calibrator.calibrationNeeded)
        var levels: [MagneticFieldCalibrationAccuracy] = [calibrator.accuracy]
        for sample in Self.samples(from: 0, seconds: 120) {
            calibrator.update(sample.raw, at: sample.time)
            if calibrator.accuracy != levels.last { levels.append(calibrator.accuracy) }
        }
        #expect(levels == [.uncalibrated, .low, .medium, .high])
        #expect(!calibrator.calibrationNeeded)
    }

    @Test("turning about one axis only (a ring of readings) never calibrates")
    func oneAxis() {
        var calibrator = MagnetometerCalibrator()
        let yaw = { (t: Double) in Quaternion(axis: Vector3(0, 0, 1), angle: 0.5 * t) }
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120, attitude: yaw))
        #expect(calibrator.accuracy == .uncalibrated)
        #expect(calibrator.calibrationNeeded)
    }

    @Test("a lasting change of hard iron drops the accuracy, then re-converges to the new offset")
    func hardIronChange() {
        var calibrator = MagnetometerCalibrator()
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120))
        #expect(calibrator.accuracy == .high)
        let newOffset = Vector3(-10, 30, -20)
        var lowest = calibrator.accuracy
        for sample in Self.samples(from: 120, seconds: 180, offset: newOffset, seed: 2) {
            calibrator.update(sample.raw, at: sample.time)
            lowest = min(lowest, calibrator.accuracy)
        }
        #expect(lowest <= .low)
        #expect(calibrator.accuracy == .high)
        #expect((calibrator.calibration.offset - newOffset).norm < 1, "offset \(calibrator.calibration.offset)")
        #expect(Self.magnitudeError(calibrator.calibration, offset: newOffset) < 0.02)
    }

    @Test("a passing magnet (2 s) neither changes the calibration nor lowers the accuracy")
    func transientDisturbance() {
        var calibrator = MagnetometerCalibrator()
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120))
        let before = calibrator.calibration
        for sample in Self.samples(from: 120, seconds: 2, offset: Self.offset + Vector3(30, 0, 0), seed: 3) {
            calibrator.update(sample.raw, at: sample.time)
            #expect(calibrator.accuracy == .high)
        }
        #expect(calibrator.calibration == before)
        // None of the disturbed samples was retained.
        let strength = calibrator.calibration.fieldStrength
        #expect(calibrator.state.samples.compactMap { $0 }.allSatisfy {
            abs(calibrator.calibrated($0.field).norm / strength - 1) < 0.1
        })
        Self.feed(&calibrator, Self.samples(from: 122, seconds: 30, seed: 4))
        #expect(calibrator.accuracy == .high)
        #expect((calibrator.calibration.offset - Self.offset).norm < 1)
    }

    @Test("readings calibrated before motiond sees them are kept as they come, and rise to high accuracy as they are")
    func alreadyCalibrated() {
        var calibrator = MagnetometerCalibrator()
        var levels: [MagneticFieldCalibrationAccuracy] = [calibrator.accuracy]
        for sample in Self.samples(from: 0, seconds: 120, offset: .zero, softIron: .identity) {
            let changed = calibrator.update(sample.raw, at: sample.time)
            #expect(!changed, "the calibration in use never changes")
            if calibrator.accuracy != levels.last { levels.append(calibrator.accuracy) }
        }
        #expect(calibrator.calibration.isIdentity)
        #expect(levels == [.uncalibrated, .low, .medium, .high])
        #expect(abs(calibrator.calibration.fieldStrength - Self.earth.norm) < 0.5)
    }

    @Test("a real recording calibrated by its authors (BROAD 26: a vibrating phone attached, the magnitude varying by 6 %) is kept as it is")
    func calibratedRecording() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Fixtures/broad-26-magnetometer.csv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        var calibrator = MagnetometerCalibrator()
        var residuals: [Double] = []
        for row in rows where row.count == 4 {
            calibrator.update(Vector3(row[1], row[2], row[3]), at: row[0])
            residuals.append(calibrator.state.residual)
        }
        #expect(rows.count > 2500)
        #expect(calibrator.calibration.isIdentity, "offset \(calibrator.calibration.offset)")
        // Judged as they are: about 6 % off a sphere, so low (a fit of the same samples gets about 1.4 %).
        #expect(calibrator.accuracy == .low)
        #expect(calibrator.state.residual > 0.04 && calibrator.state.residual < 0.08, "\(calibrator.state.residual)")
    }

    @Test("a magnet attached to calibrated readings (a 29 µT hard iron) is learned within seconds of motion")
    func hardIronOnCalibrated() {
        var calibrator = MagnetometerCalibrator()
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 120, offset: .zero, softIron: .identity))
        #expect(calibrator.accuracy == .high && calibrator.calibration.isIdentity)
        let magnet = Vector3(20, -15, 15)
        var learned: Double?
        for sample in Self.samples(from: 120, seconds: 120, offset: magnet, softIron: .identity, seed: 6) {
            calibrator.update(sample.raw, at: sample.time)
            if learned == nil, (calibrator.calibration.offset - magnet).norm < 2 { learned = sample.time - 120 }
        }
        #expect((learned ?? .infinity) <= 20, "learned \(learned.map { "\($0) s" } ?? "never") after the magnet came")
        #expect(calibrator.accuracy == .high)
        #expect((calibrator.calibration.offset - magnet).norm < 1)
    }

    // MARK: - With the gyroscope

    /// Feeds readings of a turning device (true field m and rate, see
    /// `MagnetometerGyroscopeAgreementTests.readings`) as raw = S·m + h plus 0.3 µT of noise;
    /// the largest angle between the calibrated and the true field over the last `judged`
    /// seconds, degrees, and the calibrator.
    static func turned(_ readings: [(time: Double, rate: Vector3, field: Vector3)], hardIron: (Double) -> Vector3, softIron: Matrix3,
                       calibrator: inout MagnetometerCalibrator, judged: Double = 2) -> Double {
        var random = SeededRandom(seed: 3)
        var worst = 0.0
        let end = readings.last?.time ?? 0
        for reading in readings {
            calibrator.update(rate: reading.rate)
            let raw = softIron * reading.field + hardIron(reading.time) + random.gaussianVector(sigma: 0.3)
            calibrator.update(raw, at: reading.time)
            if reading.time >= end - judged {
                let calibrated = calibrator.calibrated(raw)
                worst = max(worst, acos(min(1, calibrated.dot(reading.field) / (calibrated.norm * reading.field.norm))) * 180 / .pi)
            }
        }
        return worst
    }

    static let tenPercent = Matrix3(rowMajor: [1.055, -0.011, 0.069, -0.011, 0.958, 0.052, 0.069, 0.052, 0.988])

    @Test("with the gyroscope, 25 µT of hard iron and 10 % soft iron are corrected from 15 s of turning, at low accuracy")
    func gyroscopeFit() {
        var calibrator = MagnetometerCalibrator()
        let worst = Self.turned(MagnetometerGyroscopeAgreementTests.readings(seconds: 15), hardIron: { _ in Vector3(20.6, 3.9, -13.7) },
                                softIron: Self.tenPercent, calibrator: &calibrator)
        #expect(worst < 1.5, "calibrated field \(worst)° off")
        #expect(calibrator.accuracy >= .low)
    }

    @Test("with the gyroscope, the lag is refitted for a new calibration as it is adopted, not left as the readings as they come gave it until the next scheduled fit")
    func lagFollowsNewCalibration() throws {
        // Readings 20 ms behind the gyroscope, with 50 µT of hard iron and 10 % soft iron: the
        // lag fitted with the identity just before the gyroscope's fit is adopted is 0 ms, and
        // stood for 2 s (BROAD 34's magnet: 0 ms against 11 ms, heading 2–3° off while turning).
        var calibrator = MagnetometerCalibrator()
        var adopted: (time: Double, lag: Double)?
        for reading in MagnetometerGyroscopeAgreementTests.readings(seconds: 15, lagSamples: 2) {
            calibrator.update(rate: reading.rate)
            let wasIdentity = calibrator.calibration.isIdentity
            calibrator.update(Self.tenPercent * reading.field + Vector3(41.2, 7.8, -27.4), at: reading.time)
            if wasIdentity, !calibrator.calibration.isIdentity { adopted = (reading.time, calibrator.lag) }
        }
        let (time, lag) = try #require(adopted, "the gyroscope's fit was adopted")
        #expect(abs(lag - 0.02) < 0.006, "lag \(lag * 1000) ms as the fit was adopted at \(time) s, \(calibrator.lag * 1000) ms at the end")
    }

    @Test("with the gyroscope and the attitude, a low fit's offset is refined by the field held still over the last minute: a gyroscope's bias misleads the windows, not the attitude")
    func attitudeRefinesOffset() throws {
        // Turning mostly about one axis, tipping a little: the readings trace a band, which a
        // sphere or ellipsoid cannot fit, so the gyroscope's fit stays in use, at low accuracy; a
        // bias of its rate (0.03 rad/s, which the fusion's attitude has learned) bends it.
        let readings = MagnetometerAttitudeAgreementTests.readings(seconds: 90, speed: 1, hardIron: Vector3(20.6, 3.9, -13.7),
                                                                   turning: { t in Vector3(0.3 * sin(0.5 * t), 0.3 * cos(0.35 * t), 1) })
        func run(_ parameters: MagnetometerCalibrator.Parameters) -> (offset: Vector3, changes: Int) {
            var calibrator = MagnetometerCalibrator(parameters: parameters)
            var changes = 0
            for reading in readings {
                calibrator.update(rate: reading.rate + Vector3(0.03, -0.02, 0.02)) // as read: biased
                if calibrator.update(reading.raw, at: reading.time, attitude: reading.attitude) { changes += 1 }
            }
            return (calibrator.calibration.offset, changes)
        }
        var without = MagnetometerCalibrator.Parameters()
        without.attitudeOffsetStep = 0
        let (refined, plain) = (run(MagnetometerCalibrator.Parameters()), run(without))
        let truth = Vector3(20.6, 3.9, -13.7)
        // The windows' fit, misled by the gyroscope's bias, 0.36 µT off; refined, 0.03 µT.
        #expect((plain.offset - truth).norm > 0.2, "without the refinement: \(plain.offset)")
        #expect((refined.offset - truth).norm < 0.1, "refined: \(refined.offset), \(refined.changes) changes")
    }

    @Test("with the gyroscope, readings calibrated already stay exactly as they come")
    func gyroscopeKeepsCalibrated() {
        var calibrator = MagnetometerCalibrator()
        var changed = false
        var random = SeededRandom(seed: 4)
        for reading in MagnetometerGyroscopeAgreementTests.readings(seconds: 90) {
            calibrator.update(rate: reading.rate)
            changed = calibrator.update(reading.field + random.gaussianVector(sigma: 0.3), at: reading.time) || changed
        }
        #expect(!changed && calibrator.calibration.isIdentity)
    }

    @Test("a new calibration's turn of the field is judged over the retained readings, not one reading along the new hard iron")
    func turnOverRetainedReadings() {
        // Readings on a sphere of 45 µT around a 10 µT hard iron along X; the newest along X.
        var calibrator = MagnetometerCalibrator()
        var random = SeededRandom(seed: 7)
        let hardIron = Vector3(10, 0, 0)
        for n in 0..<400 {
            let direction = random.gaussianVector(sigma: 1)
            calibrator.update(direction / direction.norm * 45 + hardIron, at: Double(n) * 0.05)
        }
        let along = Vector3(55, 0, 0)
        var fitted = calibrator.state
        fitted.calibration = MagnetometerCalibration(offset: hardIron, softIron: .identity, fieldStrength: 45)
        let restored = MagnetometerCalibrator(restoring: fitted)
        // One reading along the offset is not turned at all; the retained ones are, by about 10° on average.
        let one = MagnetometerCalibration.identity.apply(along), new = restored.calibrated(along)
        #expect(acos(min(1, one.dot(new) / (one.norm * new.norm))) < 1e-9)
        #expect(restored.turn(from: .identity, including: along) > 5 * .pi / 180)
        #expect(restored.turn(from: restored.calibration, including: along) < 1e-6)
    }

    @Test("with the gyroscope, a magnet attached to calibrated readings (20 µT) is followed within 10 s of turning")
    func gyroscopeFollowsMagnet() {
        var calibrator = MagnetometerCalibrator()
        let magnet = Vector3(12, -10, 12)
        let readings = MagnetometerGyroscopeAgreementTests.readings(seconds: 70)
        var learned: Double?
        var random = SeededRandom(seed: 5)
        for reading in readings {
            calibrator.update(rate: reading.rate)
            calibrator.update(reading.field + (reading.time >= 60 ? magnet : .zero) + random.gaussianVector(sigma: 0.3), at: reading.time)
            if reading.time < 60 {
                #expect(calibrator.calibration.isIdentity)
            } else if learned == nil, (calibrator.calibration.offset - magnet).norm < 2 {
                learned = reading.time - 60
            }
        }
        #expect((learned ?? .infinity) <= 10, "learned \(learned.map { "\($0) s" } ?? "never") after the magnet came")
    }

    @Test("with the gyroscope, a figure eight of 10 s (motionctl calibrate's gesture) corrects 25 µT of hard iron and 10 % soft iron")
    func figureEight() {
        // The device's pointing direction traces a figure eight (yaw at f, pitch at 2f) while it
        // rolls a little: one loop every 4 s. Its rate is what turns one attitude into the next.
        let dt = 0.01
        func attitude(_ t: Double) -> Quaternion {
            let phase = 2 * Double.pi * t / 4
            return Quaternion(axis: Vector3(0, 0, 1), angle: 1.0 * sin(phase))
                * Quaternion(axis: Vector3(0, 1, 0), angle: 0.6 * sin(2 * phase))
                * Quaternion(axis: Vector3(1, 0, 0), angle: 0.4 * sin(1.5 * phase))
        }
        let world = Vector3(20, 0, -40)
        let readings = (0..<1000).map { k in
            let t = Double(k) * dt
            let turn = (attitude(t).inverse * attitude(t + dt)).axisAngle
            return (time: t, rate: turn.axis * (turn.angle / dt), field: attitude(t).inverse.rotate(world))
        }
        var calibrator = MagnetometerCalibrator()
        let worst = Self.turned(readings, hardIron: { _ in Vector3(-9.1, 21.6, 8.7) }, softIron: Self.tenPercent, calibrator: &calibrator)
        #expect(worst < 1.5, "calibrated field \(worst)° off after the gesture")
    }

    @Test("non-finite samples change nothing")
    func nonFinite() {
        var calibrator = MagnetometerCalibrator()
        Self.feed(&calibrator, Self.samples(from: 0, seconds: 30))
        let state = calibrator.state
        calibrator.update(Vector3(.nan, 1, 2), at: 30)
        calibrator.update(Vector3(1, .infinity, 2), at: 30.02)
        calibrator.update(Vector3(1, 2, -.infinity), at: 30.04)
        calibrator.update(Vector3(30, 20, 10), at: .nan)
        calibrator.update(Vector3(30, 20, 10), at: .infinity)
        #expect(calibrator.state == state)
    }

    @Test("the state survives JSON exactly and the restored calibrator continues identically")
    func codableRoundTrip() throws {
        var original = MagnetometerCalibrator()
        Self.feed(&original, Self.samples(from: 0, seconds: 40))
        let data = try JSONEncoder().encode(original.state)
        let decoded = try JSONDecoder().decode(MagnetometerCalibrator.State.self, from: data)
        #expect(decoded == original.state)
        var restored = MagnetometerCalibrator(restoring: decoded)
        #expect(restored.accuracy == original.accuracy)
        var diverged = 0
        for sample in Self.samples(from: 40, seconds: 80, seed: 5) {
            original.update(sample.raw, at: sample.time)
            restored.update(sample.raw, at: sample.time)
            if restored.calibration != original.calibration { diverged += 1 }
        }
        #expect(diverged == 0)
        #expect(restored.state == original.state)
        #expect(restored.accuracy == .high)
    }

    @Test("apply subtracts the offset, then applies the soft iron; identity changes nothing")
    func applyCalibration() {
        let raw = Vector3(10, 20, 30)
        #expect(MagnetometerCalibration.identity.apply(raw) == raw)
        let calibration = MagnetometerCalibration(offset: Vector3(1, 2, 3), softIron: Matrix3(rowMajor: [2, 0, 0, 0, 1, 0, 0, 0, 0.5]), fieldStrength: 40)
        #expect(calibration.apply(raw) == Vector3(18, 18, 13.5))
    }
}
