import Testing
import Glibc
@testable import MotionCore

@Suite("Magnetometer calibration judged by the attitude over a minute")
struct MagnetometerAttitudeAgreementTests {
    /// A device turning about changing axes (`turning`, scaled by `speed`, rad/s) in a world field of 20 µT north,
    /// 40 µT down, read at 100 Hz with 0.4 µT of noise: its true attitude, rate and raw reading
    /// S·m + h.
    static func readings(seconds: Double, speed: Double, hardIron: Vector3, softIron: Matrix3 = .identity, from start: Double = 0,
                         turning: (Double) -> Vector3 = { t in Vector3(sin(0.9 * t), cos(0.6 * t), sin(0.4 * t + 1)) })
        -> [(time: Double, attitude: Quaternion, rate: Vector3, raw: Vector3)] {
        let world = Vector3(20, 0, -40), dt = 0.01
        var attitude = Quaternion.identity
        var random = SeededRandom(seed: 7)
        var out: [(time: Double, attitude: Quaternion, rate: Vector3, raw: Vector3)] = []
        for k in 0..<Int(seconds / dt) {
            let t = Double(k) * dt
            let rate = turning(t) * speed
            out.append((start + t, attitude, rate, softIron * attitude.inverse.rotate(world) + hardIron + random.gaussianVector(sigma: 0.4)))
            attitude = (attitude * Quaternion(axis: rate, angle: rate.norm * dt)).normalized
        }
        return out
    }

    static let hardIron = Vector3(20.6, 3.9, -13.7)
    static let softIron = Matrix3(rowMajor: [1.055, -0.011, 0.069, -0.011, 0.958, 0.052, 0.069, 0.052, 0.988])

    static func calibration(offset: Vector3, softIron: Matrix3 = .identity) -> MagnetometerCalibration {
        let inverse = Matrix3(rows: softIron.row1.cross(softIron.row2), softIron.row2.cross(softIron.row0),
                              softIron.row0.cross(softIron.row1)).transposed * (1 / softIron.determinant)
        return MagnetometerCalibration(offset: offset, softIron: inverse, fieldStrength: 0)
    }

    @Test("the true calibration leaves the noise (about 1 % of 45 µT), whatever its scale; 25 µT of hard iron left in leaves tens of %")
    func residuals() throws {
        var agreement = MagnetometerAttitudeAgreement()
        #expect(agreement.residual(of: .identity) == nil)
        for reading in Self.readings(seconds: 30, speed: 1.5, hardIron: Self.hardIron, softIron: Self.softIron) {
            agreement.update(field: reading.raw, attitude: reading.attitude, at: reading.time)
        }
        let truth = Self.calibration(offset: Self.hardIron, softIron: Self.softIron)
        let right = try #require(agreement.residual(of: truth))
        #expect(right < 0.012, "\(right)")
        var scaled = truth
        scaled.softIron = truth.softIron * 2
        #expect(abs(try #require(agreement.residual(of: scaled)) - right) < 1e-9)
        let raw = try #require(agreement.residual(of: .identity))
        #expect(raw > 0.2, "\(raw)")
        var mirrored = truth
        mirrored.softIron = truth.softIron * -1
        #expect(agreement.residual(of: mirrored) == nil) // not a calibration: a negative determinant
    }

    @Test("turning slowly (0.15 rad/s for 30 s): an offset 3 µT off leaves 1.6 times what the truth leaves here, where the 0.125-s windows cannot tell the two apart (under 1.01)")
    func slowTurning() throws {
        var attitudeAgreement = MagnetometerAttitudeAgreement()
        var windows = MagnetometerGyroscopeAgreement()
        for reading in Self.readings(seconds: 30, speed: 0.15, hardIron: Self.hardIron) {
            attitudeAgreement.update(field: reading.raw, attitude: reading.attitude, at: reading.time)
            windows.update(rate: reading.rate)
            windows.update(field: reading.raw, at: reading.time)
        }
        let truth = Self.calibration(offset: Self.hardIron)
        let off = Self.calibration(offset: Self.hardIron + Vector3(2, -2, 1))
        let attitudeRatio = try #require(attitudeAgreement.residual(of: off)) / #require(attitudeAgreement.residual(of: truth))
        let windowRatio = try #require(windows.residual(of: off)) / #require(windows.residual(of: truth))
        #expect(attitudeRatio > 1.4, "\(attitudeRatio)")
        #expect(windowRatio < 1.01, "\(windowRatio)")
    }

    @Test("only the last minute counts: 70 s after the device's own field changed, the new offset is judged on its readings alone; reset forgets")
    func lastMinute() throws {
        var agreement = MagnetometerAttitudeAgreement()
        let changed = Self.hardIron + Vector3(0, 15, 0)
        for reading in Self.readings(seconds: 60, speed: 1.5, hardIron: Self.hardIron)
            + Self.readings(seconds: 70, speed: 1.5, hardIron: changed, from: 60) {
            agreement.update(field: reading.raw, attitude: reading.attitude, at: reading.time)
        }
        let now = try #require(agreement.residual(of: Self.calibration(offset: changed)))
        let before = try #require(agreement.residual(of: Self.calibration(offset: Self.hardIron)))
        #expect(now < 0.012, "\(now)")
        #expect(before > 10 * now, "\(before)")
        agreement.reset()
        #expect(agreement.residual(of: Self.calibration(offset: changed)) == nil)
    }
}
