import Testing
import Glibc
@testable import MotionCore

@Suite("Magnetometer calibration judged by the gyroscope")
struct MagnetometerGyroscopeAgreementTests {
    /// A device turning about changing axes (about 1.5 rad/s) in a world field of 20 µT north,
    /// 40 µT down, read at 100 Hz: the gyroscope's rate exactly and the field as the device sees
    /// it, `lagSamples` readings behind the gyroscope.
    static func readings(seconds: Double = 40, lagSamples: Int = 0, turning: Bool = true) -> [(time: Double, rate: Vector3, field: Vector3)] {
        let world = Vector3(20, 0, -40), dt = 0.01
        var attitude = Quaternion(w: 1, x: 0, y: 0, z: 0)
        var fields: [Vector3] = []
        var out: [(time: Double, rate: Vector3, field: Vector3)] = []
        func rate(at t: Double) -> Vector3 { turning ? Vector3(sin(0.9 * t), cos(0.6 * t), sin(0.4 * t + 1)) * 1.5 : .zero }
        for k in 0..<Int(seconds / dt) {
            let t = Double(k) * dt
            fields.append(attitude.inverse.rotate(world))
            out.append((t, rate(at: t), fields[max(0, k - lagSamples)]))
            // The attitude to the next reading, in steps of 1 ms at the midpoint rate.
            for step in 0..<10 {
                let w = rate(at: t + (Double(step) + 0.5) * dt / 10)
                if w.norm > 0 { attitude = (attitude * Quaternion(axis: w / w.norm, angle: w.norm * dt / 10)).normalized }
            }
        }
        return out
    }

    /// Those readings with raw = S·m + h fed to an agreement.
    static func agreement(hardIron h: Vector3, softIron s: Matrix3, lagSamples: Int = 0, seconds: Double = 40, turning: Bool = true) -> MagnetometerGyroscopeAgreement {
        var agreement = MagnetometerGyroscopeAgreement()
        for reading in readings(seconds: seconds, lagSamples: lagSamples, turning: turning) {
            agreement.update(rate: reading.rate)
            agreement.update(field: s * reading.field + h, at: reading.time)
        }
        return agreement
    }

    static let softIron = Matrix3(rowMajor: [1.055, -0.011, 0.069, -0.011, 0.958, 0.052, 0.069, 0.052, 0.988])
    static let hardIron = Vector3(20.6, 3.9, -13.7)

    static func inverse(_ m: Matrix3) -> Matrix3 {
        Matrix3(rows: m.row1.cross(m.row2), m.row2.cross(m.row0), m.row0.cross(m.row1)).transposed * (1 / m.determinant)
    }

    @Test("the true calibration leaves almost nothing of the gyroscope's prediction; the readings as they come, with 25 µT of hard iron, leave µT")
    func residuals() throws {
        let agreement = Self.agreement(hardIron: Self.hardIron, softIron: Self.softIron)
        let truth = MagnetometerCalibration(offset: Self.hardIron, softIron: Self.inverse(Self.softIron), fieldStrength: 0)
        let right = try #require(agreement.residual(of: truth)), wrong = try #require(agreement.residual(of: .identity))
        #expect(right < 0.1, "\(right) µT")
        #expect(wrong > 20 * right, "\(wrong) µT")
        #expect(agreement.turning > 10)
    }

    @Test("the fit finds the hard iron, the soft iron up to scale and the lag from turning alone", arguments: [0, 2])
    func fit(lagSamples: Int) throws {
        let agreement = Self.agreement(hardIron: Self.hardIron, softIron: Self.softIron, lagSamples: lagSamples)
        let (calibration, lag) = try #require(agreement.fit())
        #expect((calibration.offset - Self.hardIron).norm < 0.3, "\(calibration.offset)")
        let expected = Self.inverse(Self.softIron)
        let scale = (calibration.softIron[0, 0] + calibration.softIron[1, 1] + calibration.softIron[2, 2])
            / (expected[0, 0] + expected[1, 1] + expected[2, 2])
        for i in 0..<3 {
            for j in 0..<3 { #expect(abs(calibration.softIron[i, j] / scale - expected[i, j]) < 0.01, "W[\(i), \(j)]: \(calibration.softIron)") }
        }
        #expect(abs(lag - Double(lagSamples) * 0.01) < 0.004, "lag \(lag) s")
    }

    @Test("a device at rest gives no evidence: nothing turns and nothing is fitted")
    func atRest() {
        let agreement = Self.agreement(hardIron: Self.hardIron, softIron: Self.softIron, seconds: 10, turning: false)
        #expect(agreement.turning == 0)
        #expect(agreement.fit() == nil)
    }

    @Test("reset forgets every window; non-finite input is ignored")
    func resetAndGarbage() {
        var agreement = Self.agreement(hardIron: Self.hardIron, softIron: Self.softIron, seconds: 5)
        #expect(agreement.residual(of: .identity) != nil)
        agreement.update(rate: Vector3(.nan, 0, 0))
        agreement.update(field: Vector3(.infinity, 0, 0), at: 5.5)
        #expect(agreement.residual(of: .identity)?.isFinite == true)
        agreement.reset()
        #expect(agreement.residual(of: .identity) == nil && agreement.turning == 0)
    }
}
