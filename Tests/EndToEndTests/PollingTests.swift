import Foundation
import MotionCore
@testable import TestSupport
import Testing

/// Samples read by polling sysfs on emulated devices: values checked against numbers worked out
/// by hand from the fixture's raw values, scales, offsets and mount matrices.
@Suite("Polled samples on emulated hardware")
struct PollingTests {
    static let g = 9.80665

    func expectClose(_ sample: (timestamp: Double, x: Double, y: Double, z: Double)?, _ x: Double, _ y: Double, _ z: Double,
                     tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let sample else {
            Issue.record("no sample", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(sample.x - x) < tolerance && abs(sample.y - y) < tolerance && abs(sample.z - z) < tolerance,
                "got (\(sample.x), \(sample.y), \(sample.z)), expected (\(x), \(y), \(z))", sourceLocation: sourceLocation)
    }

    @Test("HID laptop: buffer yields nothing, falls back to polling; G, rad/s, µT")
    func hidLaptopPolled() async throws {
        let output = try await Emulation.motiond(fixture: "hid-laptop.umockdev", ["--print-samples", "--json", "--duration", "2.5", "--interval", "0.02"])
        #expect(output.status == 0)
        // accel raw (12, −985, −170) × 0.00980665 m/s² ÷ 9.80665 = (0.012, −0.985, −0.170) G
        expectClose(output.samples("accelerometer").first, 0.012, -0.985, -0.170)
        // gyro raw (150, −20, 0) × 0.000174533 rad/s = (0.02617995, −0.00349066, 0)
        expectClose(output.samples("gyro").first, 0.02617995, -0.00349066, 0)
        // magn raw (200, −50, −430) × 0.001 Gauss × 100 = (20, −5, −43) µT
        expectClose(output.samples("magnetometer").first, 20, -5, -43)
        #expect(output.availability("accelerometer").first?.mode == "polling")
        #expect(output.stderr.contains("the buffer produced no data within 500 ms; polling accelerometer through sysfs instead"))
    }

    @Test("mpu6050: per-type mount matrix applied to accelerometer and gyroscope")
    func mpu6050Polled() async throws {
        let output = try await Emulation.motiond(fixture: "mpu6050.umockdev", ["--print-samples", "--json", "--count", "4", "--interval", "0.02"])
        #expect(output.status == 0)
        // accel raw (−120, 35, 16384) × 0.000598 = (−0.07176, 0.02093, 9.797632) m/s², the specific
        // force (lying face up); M = [0 1 0; −1 0 0; 0 0 1] made improper, [0 1 0; −1 0 0; 0 0 −1]
        // → (0.02093, 0.07176, −9.797632) ÷ 9.80665: face up reads z ≈ −1 G
        expectClose(output.samples("accelerometer").first, 0.02093 / Self.g, 0.07176 / Self.g, -9.797632 / Self.g)
        // gyro raw (300, −200, 100) × 0.001064724 = (0.3194172, −0.2129448, 0.1064724), through
        // the negation of that, [0 −1 0; 1 0 0; 0 0 1] → (0.2129448, 0.3194172, 0.1064724)
        expectClose(output.samples("gyro").first, 0.2129448, 0.3194172, 0.1064724)
    }

    @Test("st_lsm6dsx: per-axis scale, shared mount matrix; sampling frequency raised to 52 Hz for 20 ms, put back on exit")
    func lsm6dsxPolled() async throws {
        let output = try await Emulation.motiond(
            fixture: "lsm6dsx.umockdev", ["--print-samples", "--json", "--duration", "2", "--interval", "0.02"],
            after: "for d in 0 1; do tr -d '\\000' < /sys/bus/iio/devices/iio:device$d/sampling_frequency; echo; done")
        #expect(output.status == 0)
        // raw (512, 1672, −16000) × 0.000598 = (0.306176, 0.999856, −9.568); M = diag(−1, −1, 1)
        // made improper, diag(−1, −1, −1)
        expectClose(output.samples("accelerometer").first, -0.306176 / Self.g, -0.999856 / Self.g, 9.568 / Self.g)
        // raw (1000, 0, −500) × 0.000153 = (0.153, 0, −0.0765), through the negation: identity
        expectClose(output.samples("gyro").first, 0.153, 0, -0.0765)
        // 50 Hz wanted; available 12.5 26 52 104 …: the smallest at or above is 52, on both
        // devices; on exit both are put back to the 26 Hz they had.
        for (device, name) in [("iio:device0", "lsm6dsl_accel"), ("iio:device1", "lsm6dsl_gyro")] {
            #expect(output.stderr.contains("set sampling_frequency of \(device) (\(name)) to 52 Hz for a 20 ms period"), "\(output.stderr)")
            #expect(output.stderr.contains("restored sampling_frequency of \(device) to 26.000000"), "\(output.stderr)")
        }
        let after = output.stdout.components(separatedBy: "--- after ---\n").last ?? ""
        #expect(after.split(separator: "\n") == ["26.000000", "26.000000"])
    }

    @Test("ak8975: Gauss to µT through per-axis scales and in_mount_matrix")
    func ak8975Polled() async throws {
        let output = try await Emulation.motiond(fixture: "ak8975.umockdev", ["--print-samples", "--json", "--count", "2"])
        #expect(output.status == 0)
        // raw (100, −200, 300) × (0.003, 0.0029, 0.0031) = (0.3, −0.58, 0.93) G; M = diag(1, −1, −1),
        // a specific-force family's chip: read through proper(−M) = diag(−1, 1, −1)
        // → (−0.3, −0.58, −0.93) Gauss × 100 = (−30, −58, −93) µT
        expectClose(output.samples("magnetometer").first, -30, -58, -93)
        #expect(output.samples("accelerometer").isEmpty)
        #expect(output.availability("accelerometer").first?.available == false)
    }

    @Test("offsets are added before scaling")
    func offsetsPolled() async throws {
        let output = try await Emulation.motiond(fixture: "offsets.umockdev", ["--print-samples", "--json", "--count", "2", "--sensors", "accelerometer"])
        // x (90 + 10) × 0.00980665 = 0.980665 → 0.1 G; y (−996 − 4) → −1 G; z (4 − 4) → 0
        expectClose(output.samples("accelerometer").first, 0.1, -1, 0)
    }

    @Test("a specific-force chip's improper hwdb matrix is used as given; configuration overrides it")
    func mountMatrixPolled() async throws {
        let hwdb = try await Emulation.motiond(fixture: "mount-matrix.umockdev", ["--print-samples", "--json", "--count", "2", "--sensors", "accelerometer"])
        // raw (200, −1000, 30) × 0.00980665 ÷ 9.80665 = (0.2, −1, 0.03) G; M = [0 −1 0; −1 0 0; 0 0 1]
        // is improper: the negation of the rotation [0 1 0; 1 0 0; 0 0 −1] the gyroscope would take
        expectClose(hwdb.samples("accelerometer").first, 1, -0.2, 0.03)
        #expect(!hwdb.stderr.contains("negated its z row"))

        let configured = try await Emulation.motiond(fixture: "mount-matrix.umockdev", [
            "--print-samples", "--json", "--count", "2", "--sensors", "accelerometer",
            "--mount-matrix", "iio:device0/accelerometer=1, 0, 0; 0, 1, 0; 0, 0, 1",
        ])
        expectClose(configured.samples("accelerometer").first, 0.2, -1, -0.03)
    }

    @Test("convertible: samples come from the display accelerometer")
    func convertiblePolled() async throws {
        let output = try await Emulation.motiond(fixture: "convertible.umockdev", ["--print-samples", "--json", "--count", "2", "--sensors", "accelerometer"])
        // The display sensor (iio:device1) reads raw (0, −1000, 0) → (0, −1, 0); the base one (0, 0, −1).
        expectClose(output.samples("accelerometer").first, 0, -1, 0)
        #expect(output.availability("accelerometer").first?.reason.contains("iio:device1") == true)
    }

    @Test("broken devices do not stop a good one; a missing kind is reported unavailable")
    func garbagePolled() async throws {
        let output = try await Emulation.motiond(fixture: "garbage.umockdev", ["--print-samples", "--json", "--count", "3"])
        #expect(output.status == 0)
        // raw (100, −100, 50) × 0.001 = (0.1, −0.1, 0.05) rad/s; the identity read as the
        // specific-force family's: through proper(−I) = diag(−1, −1, 1)
        expectClose(output.samples("gyro").first, -0.1, 0.1, 0.05)
        let accel = try #require(output.availability("accelerometer").first)
        #expect(!accel.available)
        #expect(accel.reason == "no accelerometer found on local:")
        #expect(output.stderr.contains("skipped accelerometer on iio:device0 (bma250e): in_accel_scale has unparseable value '0,0383'"))
    }

    @Test("polled timestamps are CLOCK_BOOTTIME seconds, increasing, about one period apart")
    func timestamps() async throws {
        let before = Emulation.bootTime()
        let output = try await Emulation.motiond(fixture: "ak8975.umockdev", ["--print-samples", "--json", "--count", "20", "--interval", "0.01"])
        let after = Emulation.bootTime()
        let times = output.samples("magnetometer").map(\.timestamp)
        #expect(times.count == 20)
        #expect(times.allSatisfy { $0 >= before && $0 <= after })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // 19 intervals of 10 ms: the span is near 0.19 s (generous bounds: a loaded CI machine).
        let span = times.last! - times.first!
        #expect(span > 0.1 && span < 2)
    }

    @Test("bad command lines are refused with a message, never a crash")
    func badArguments() async throws {
        let repeated = try await Emulation.run([Emulation.motiond, "--source", "sim:", "--sensors", "accelerometer", "accelerometer", "--count", "1", "--json"])
        #expect(repeated.status == 0)
        #expect(repeated.samples("accelerometer").count == 1)
        let nan = try await Emulation.run([Emulation.motiond, "--source", "sim:", "--duration", "nan"])
        #expect(nan.status != 0 && nan.stderr.contains("--duration must be a positive number of seconds"))
        let uri = try await Emulation.run([Emulation.motiond, "--source", "usb:1"])
        #expect(uri.status != 0 && uri.stderr.contains("unsupported source 'usb:1'"))
    }

    @Test("a period outside 10–100 ms is an error, not a silent clamp")
    func periodRange() async throws {
        let output = try await Emulation.motiond(fixture: "ak8975.umockdev", ["--print-samples", "--interval", "0.5"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("outside the supported 0.01–0.1 s"))
    }
}
