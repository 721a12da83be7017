import Foundation
@testable import TestSupport
import Testing

/// Unplug and replug at runtime: a live libumockdev testbed, a running `motiond`, uevents.
@Suite("Hot-plug on emulated hardware", .serialized, .testbedTurn)
struct HotplugTests {
    /// The st_lsm6dsx pair: accelerometer on iio:device0, gyroscope on iio:device1 (polled, since
    /// no buffer feed is scripted).
    static let gyroSyspath = "/sys/devices/platform/soc/i2c-2/2-006a/iio:device1"

    static let replugSyspath = "/sys/devices/platform/soc/i2c-2/2-006a/iio:device2"

    /// The gyroscope plugged in again: the kernel gives it the next free number, iio:device2.
    /// (umockdev also cannot reuse a removed node name within one testbed.)
    static func replugged() throws -> String {
        let blocks = try Emulation.fixtureText("lsm6dsx.umockdev").components(separatedBy: "\n\n")
        let gyro = try #require(blocks.first { $0.contains("iio:device1") })
        return gyro.replacingOccurrences(of: "iio:device1", with: "iio:device2")
            .replacingOccurrences(of: "MINOR=1", with: "MINOR=2").replacingOccurrences(of: "dev=237:1", with: "dev=237:2") + "\n"
    }

    func startDaemon(_ testbed: Testbed, duration: Int) throws -> RunningProcess {
        try RunningProcess([Emulation.motiond, "--log-level", "debug", "--print-samples", "--json", "--sensors", "accelerometer", "gyroscope",
                            "--interval", "0.02", "--duration", "\(duration)"], environment: testbed.environment)
    }

    @Test("udev remove makes the gyroscope unavailable while the accelerometer goes on; add brings it back",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func removeAndAddUevents() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try startDaemon(testbed, duration: 25)
        defer { daemon.terminate() }

        #expect(await daemon.wait(timeout: 10) { $0.samples("gyro").count >= 5 && $0.samples("accelerometer").count >= 5 })

        // The uevent first, its effect awaited, then the files go: this isolates the udev path
        // (the read-error path is the next test).
        testbed.uevent(Self.gyroSyspath, "remove")
        // Generous: on a busy test run the daemon may take seconds to get to the event, and
        // the files must not vanish before it has.
        // While the files are still there a rescan may find the device again a moment later,
        // so the loss is looked for anywhere in the output, not only as the latest state.
        #expect(await daemon.wait(timeout: 20) { $0.availability("gyroscope").contains { !$0.available } })
        testbed.remove(Self.gyroSyspath)
        let removedAt = daemon.output
        let lost = try #require(removedAt.availability("gyroscope").first { !$0.available })
        #expect(lost.reason == "iio:device1 was removed (udev)", "the uevent, not a read error, reported the removal")
        // The accelerometer keeps delivering after the gyroscope is gone.
        let accelBefore = removedAt.samples("accelerometer").count
        #expect(await daemon.wait(timeout: 5) { $0.samples("accelerometer").count >= accelBefore + 10 })
        #expect(daemon.isRunning)

        try testbed.add(try Self.replugged())
        testbed.uevent(Self.replugSyspath, "add")
        let gyroBefore = daemon.output.samples("gyro").count
        #expect(await daemon.wait(timeout: 10) { $0.availability("gyroscope").last?.available == true && $0.samples("gyro").count >= gyroBefore + 5 })
        let times = daemon.output.samples("gyro").map(\.timestamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps keep increasing across the replug")
        #expect(daemon.stop() == 0)
        #expect(daemon.stderr.contains("udev add iio:device2"))
        #expect(daemon.stderr.contains("lost gyroscope on iio:device1: udev removed it"))
    }

    @Test("a device vanishing without a uevent is detected by its read errors and found again by rescans")
    func silentVanish() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try startDaemon(testbed, duration: 25)
        defer { daemon.terminate() }
        #expect(await daemon.wait(timeout: 10) { $0.samples("gyro").count >= 5 })

        testbed.remove(Self.gyroSyspath)
        #expect(await daemon.wait(timeout: 5) { $0.availability("gyroscope").last?.available == false })
        let reason = daemon.output.availability("gyroscope").last?.reason ?? ""
        // The attribute's file, held open since issue 33 (libiio's reads named it "raw of in_anglvel_x").
        #expect(reason.hasPrefix("iio:device1 stopped answering: read /sys/bus/iio/devices/iio:device1/in_anglvel_"))
        #expect(reason.hasSuffix("No such file or directory (2) (errno 2)"))
        #expect(daemon.isRunning)

        try testbed.add(try Self.replugged())
        let gyroBefore = daemon.output.samples("gyro").count
        // Rescans back off from 1 s: the device is found again within a few seconds.
        #expect(await daemon.wait(timeout: 12) { $0.availability("gyroscope").last?.available == true && $0.samples("gyro").count > gyroBefore })
        #expect(daemon.stop() == 0)
        // One warning for the loss, not one per failed read.
        #expect(daemon.stderr.components(separatedBy: "lost gyroscope").count - 1 == 1, "stderr: \(daemon.stderr)")
    }

    /// A live testbed with the mpu6050 fed `scans` still scans, one every 10 ms (`dir` holds
    /// the script), and motiond reading it for 25 s, once it reads the buffer.
    func bufferedMPU6050(scans: Int, in dir: URL) async throws -> (testbed: Testbed, daemon: RunningProcess) {
        var script = ScanScript()
        for i in 0..<scans {
            script.read(ScanScript.mpu6050Scan(accel: [0, 0, 1000], gyro: [0, 0, 0], nanoseconds: Int64(1_000_000_000 + i * 10_000_000)), delay: 10)
        }
        let scriptPath = dir.appendingPathComponent("feed.script").path
        try script.write(to: URL(fileURLWithPath: scriptPath))
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("mpu6050.umockdev"))
        try testbed.loadScript("/dev/iio:device0", scriptPath)
        let daemon = try startDaemon(testbed, duration: 25)
        #expect(await daemon.wait(timeout: 10) { $0.samples("gyro").count >= 10 })
        #expect(daemon.output.availability("accelerometer").first?.mode == "buffered")
        return (testbed, daemon)
    }

    @Test("unplugging a buffered device cancels its blocked read: no stall, both of its sensors unavailable",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func bufferedUnplug() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 30 s of scans.
        let (testbed, daemon) = try await bufferedMPU6050(scans: 3000, in: dir)
        defer { daemon.terminate() }

        testbed.uevent(Self.mpu6050Syspath, "remove")
        #expect(await daemon.wait(timeout: 5) {
            $0.availability("accelerometer").last?.available == false && $0.availability("gyroscope").last?.available == false
        })
        #expect(daemon.output.availability("accelerometer").last?.reason == "iio:device0 was removed (udev)")
        // The daemon prints in the pipeline's order, possibly late on a busy machine: what it
        // printed after reporting the loss is what it read after the removal.
        try await Task.sleep(for: .milliseconds(300))
        let lines = daemon.output.jsonLines
        let lost = try #require(lines.firstIndex { $0["type"] as? String == "availability" && $0["sensor"] as? String == "accelerometer" && $0["available"] as? Bool == false })
        #expect(!lines[(lost + 1)...].contains { $0["type"] as? String == "accelerometer" }, "no samples after the removal")
        // The daemon still answers signals at once: nothing is stuck in a read.
        let start = Date()
        #expect(daemon.stop() == 0)
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test("a buffered device removed without a uevent (no udevd) whose read only times out is reported gone at the first timeout, not after 5 s",
          .enabled(if: Testbed.canSendUevents, "a live testbed needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func bufferedRemovedSilently() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Half a second of scans, then the feed stops: reads block until the context's 1 s
        // timeout, as a removed HID sensor's do on a real kernel.
        let (testbed, daemon) = try await bufferedMPU6050(scans: 50, in: dir)
        defer { daemon.terminate() }
        testbed.remove(Self.mpu6050Syspath)
        #expect(await daemon.wait(timeout: 10) { $0.availability("accelerometer").last?.available == false })
        let reason = daemon.output.availability("accelerometer").last?.reason ?? ""
        #expect(reason.contains("iio:device0 is gone (its sysfs directory vanished"), "\(reason)")
    }

    @Test("a sensor that starts returning garbage is logged once, then after 5 s reported unavailable; the other keeps going")
    func garbageAtRuntime() async throws {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try startDaemon(testbed, duration: 25)
        defer { daemon.terminate() }
        #expect(await daemon.wait(timeout: 10) { $0.samples("gyro").count >= 5 })
        testbed.setAttribute(Self.gyroSyspath, "in_anglvel_x_raw", "garbage\n")
        #expect(await daemon.wait(timeout: 12) { $0.availability("gyroscope").last?.available == false })
        let output = daemon.output
        #expect(output.availability("gyroscope").last?.reason.contains("every read failed for 5 s") == true)
        // One warning for the whole episode, not one per 20 ms tick.
        #expect(output.stderr.components(separatedBy: "polling gyroscope on iio:device1 (lsm6dsl_gyro) failed").count - 1 == 1)
        // The rescan that follows skips the device and says why.
        #expect(await daemon.wait(timeout: 5) { $0.stderr.contains("in_anglvel_x_raw has unparseable value 'garbage'") })
        let accel = daemon.output.samples("accelerometer").count
        #expect(await daemon.wait(timeout: 5) { $0.samples("accelerometer").count > accel + 10 })
        #expect(daemon.stop() == 0)
    }

    @Test("when the display accelerometer returns, motiond switches back to it from the base one",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func displaySensorPreferred() async throws {
        // The BOSC0200 pair of the convertible fixture: device0 in the base, device1 in the display.
        let blocks = try Emulation.fixtureText("convertible.umockdev").components(separatedBy: "\n\n")
        let base = try #require(blocks.first { $0.contains("label=accel-base") })
        let display = try #require(blocks.first { $0.contains("label=accel-display") && $0.contains("bmc150_accel") })
        let displaySyspath = "/sys/devices/platform/80860F41:03/i2c-3/i2c-BOSC0200:00/iio:device1"
        let testbed = Testbed()
        try testbed.add(base + "\n\n" + display + "\n")
        let daemon = try RunningProcess([Emulation.motiond, "--log-level", "debug", "--print-samples", "--json",
                                         "--sensors", "accelerometer", "--interval", "0.02", "--duration", "25"], environment: testbed.environment)
        defer { daemon.terminate() }
        // Display sensor: raw (0, −1000, 0) → (0, −1, 0) G; base sensor: (0, 0, −1000), a bmc150
        // (specific force) → (0, 0, 1) G.
        #expect(await daemon.wait(timeout: 10) { $0.samples("accelerometer").last.map { $0.y < -0.99 } == true })

        testbed.uevent(displaySyspath, "remove")
        testbed.remove(displaySyspath)
        // The base sensor stands in (better than nothing for motion data)…
        #expect(await daemon.wait(timeout: 10) { $0.samples("accelerometer").last.map { $0.z > 0.99 } == true })
        #expect(daemon.output.availability("accelerometer").last?.reason.contains("iio:device0") == true)

        // …until the display sensor is back, as iio:device2.
        try testbed.add(display.replacingOccurrences(of: "iio:device1", with: "iio:device2")
            .replacingOccurrences(of: "MINOR=1", with: "MINOR=2").replacingOccurrences(of: "dev=237:1", with: "dev=237:2") + "\n")
        testbed.uevent(displaySyspath.replacingOccurrences(of: "device1", with: "device2"), "add")
        #expect(await daemon.wait(timeout: 10) { $0.samples("accelerometer").last.map { $0.y < -0.99 } == true })
        #expect(daemon.output.availability("accelerometer").last?.reason.contains("iio:device2") == true)
        #expect(daemon.stop() == 0)
    }

    @Test("a udev add for a device already being read (found before udev got to it) opens it again, with the mount matrix udev gives it",
          .enabled(if: Testbed.canSendUevents, "sending uevents needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
    func addReopensDeviceBeingRead() async throws {
        let accelSyspath = "/sys/devices/platform/soc/i2c-2/2-006a/iio:device0"
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        let daemon = try startDaemon(testbed, duration: 25)
        defer { daemon.terminate() }
        #expect(await daemon.wait(timeout: 10) { $0.samples("accelerometer").count >= 5 })
        let before = try #require(daemon.output.samples("accelerometer").last)

        // What udev's hwdb gives the device once its rules run: a quarter turn about z, taking
        // the place of the driver's mount matrix (a sensor reading (x, y, z) under it reads
        // (−y, x, z) under this one).
        testbed.setProperty(accelSyspath, "ACCEL_MOUNT_MATRIX", "0, 1, 0; -1, 0, 0; 0, 0, 1")
        testbed.uevent(accelSyspath, "add")
        #expect(await daemon.wait(timeout: 10) { $0.stderr.contains("iio:device0: udev has processed it since it was opened; opening it again") })
        let turned = { (s: (timestamp: Double, x: Double, y: Double, z: Double)) in
            abs(s.x + before.y) < 1e-6 && abs(s.y - before.x) < 1e-6 && abs(s.z - before.z) < 1e-6
        }
        #expect(await daemon.wait(timeout: 10) { $0.samples("accelerometer").last.map(turned) == true },
                "before \(before), now \(String(describing: daemon.output.samples("accelerometer").last))")
        let gyro = daemon.output.samples("gyro").count
        #expect(await daemon.wait(timeout: 5) { $0.samples("gyro").count > gyro + 10 }, "the gyroscope's device was not touched")
        #expect(daemon.stop() == 0)
    }
}
