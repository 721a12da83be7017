import Testing
import MotionCore

@Suite("SampleConversion")
struct SampleConversionTests {
    @Test("accelerometer: raw × scale, then m/s² → G")
    func accelerometer() {
        let c = SampleConversion(kind: .accelerometer, scale: Vector3(0.000598, 0.000598, 0.000598))
        let v = c.convert(raw: Vector3(-120, 35, 16384))
        // x: −120 × 0.000598 = −0.07176 m/s²;  −0.07176 / 9.80665 = −0.0073174835443296…
        // y:   35 × 0.000598 =  0.02093 m/s²;   0.02093 / 9.80665 =  0.0021342660337628…
        // z: 16384 × 0.000598 = 9.797632 m/s²; 9.797632 / 9.80665 = 0.9990804199191365…
        #expect(isClose(v.x, -0.0073174835443296, tolerance: 1e-14))
        #expect(isClose(v.y, 0.0021342660337628, tolerance: 1e-14))
        #expect(isClose(v.z, 0.9990804199191365, tolerance: 1e-14))
        // 1 / 9.80665 = 0.10197162129779283
        #expect(isClose(c.unitFactor, 0.10197162129779283, tolerance: 1e-16))
    }

    @Test("one standard gravity converts to exactly one G")
    func standardGravity() {
        let c = SampleConversion(kind: .accelerometer, scale: Vector3(1, 1, 1))
        let v = c.convert(raw: Vector3(0, 0, -9.80665))
        #expect(isClose(v, Vector3(0, 0, -1), tolerance: 1e-15))
    }

    @Test("gyroscope keeps rad/s")
    func gyroscope() {
        let c = SampleConversion(kind: .gyroscope, scale: Vector3(0.001, 0.001, 0.001))
        // (1000, −250, 40) × 0.001 = (1, −0.25, 0.04) rad/s, factor 1.
        let v = c.convert(raw: Vector3(1000, -250, 40))
        #expect(isClose(v, Vector3(1, -0.25, 0.04), tolerance: 1e-15))
        #expect(c.unitFactor == 1)
    }

    @Test("magnetometer: Gauss × 100 → µT")
    func magnetometer() {
        let c = SampleConversion(kind: .magnetometer, scale: Vector3(0.0001, 0.0001, 0.0001))
        // (2000, −500, 250) × 0.0001 = (0.2, −0.05, 0.025) G; × 100 = (20, −5, 2.5) µT
        let v = c.convert(raw: Vector3(2000, -500, 250))
        #expect(isClose(v, Vector3(20, -5, 2.5), tolerance: 1e-12))
        #expect(c.unitFactor == 100)
    }

    @Test("offset is added before scaling, per axis")
    func offsetBeforeScale() {
        let c = SampleConversion(kind: .gyroscope, scale: Vector3(0.5, 2, 0.25), offset: Vector3(-20, 3, 0))
        // x: (100 − 20) × 0.5 = 40   (scale-then-offset would give 100×0.5 − 20 = 30)
        // y: (10 + 3) × 2 = 26
        // z: (8 + 0) × 0.25 = 2
        #expect(c.convert(raw: Vector3(100, 10, 8)) == Vector3(40, 26, 2))
    }

    @Test("mount matrix is applied after scaling and before the unit change")
    func mountMatrix() throws {
        let mount = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        let gyro = SampleConversion(kind: .gyroscope, scale: Vector3(0.5, 0.5, 0.5), mountMatrix: mount)
        // iio = (2, 4, 6) × 0.5 = (1, 2, 3); device = (row0·iio, row1·iio, row2·iio) = (2, −1, 3)
        #expect(gyro.convert(raw: Vector3(2, 4, 6)) == Vector3(2, -1, 3))

        // Per-axis scales act on chip axes, before the mount matrix mixes them.
        let mixed = SampleConversion(kind: .gyroscope, scale: Vector3(1, 10, 100), mountMatrix: mount)
        // iio = (1·1, 1·10, 1·100) = (1, 10, 100); device = (10, −1, 100)
        #expect(mixed.convert(raw: Vector3(1, 1, 1)) == Vector3(10, -1, 100))

        // Accelerometer: chip reading (0, −9.80665, 0) m/s² → device (−9.80665, 0, 0) → (−1, 0, 0) G
        let acc = SampleConversion(kind: .accelerometer, scale: Vector3(1, 1, 1), mountMatrix: mount)
        #expect(isClose(acc.convert(raw: Vector3(0, -9.80665, 0)), Vector3(-1, 0, 0), tolerance: 1e-15))

        // Magnetometer: offset, scale, mount, × 100.
        let mag = SampleConversion(kind: .magnetometer, scale: Vector3(0.01, 0.01, 0.01),
                                   offset: Vector3(10, 0, -5), mountMatrix: mount)
        // iio = ((−10+10)·0.01, (20+0)·0.01, (15−5)·0.01) = (0, 0.2, 0.1) G
        // device = (0.2, −0, 0.1) G → (20, 0, 10) µT
        #expect(isClose(mag.convert(raw: Vector3(-10, 20, 15)), Vector3(20, 0, 10), tolerance: 1e-12))
    }

    @Test("defaults are zero offset and identity mount")
    func defaults() {
        let c = SampleConversion(kind: .accelerometer, scale: Vector3(1, 1, 1))
        #expect(c.offset == .zero)
        #expect(c.mountMatrix == .identity)
    }
}
