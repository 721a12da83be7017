import Foundation
import MotionCore
import MotionIIO
@testable import TestSupport
import Testing

/// `motiond --list-sensors --json` on each emulated machine, through the real libiio local
/// backend under umockdev. Expected numbers are the fixture's attribute values.
@Suite("Discovery on emulated hardware")
struct DiscoveryTests {
    @Test("HID sensor hub laptop: accel_3d, gyro_3d, magn_3d with per-type attributes")
    func hidLaptop() async throws {
        let listing = try await Emulation.listing(fixture: "hid-laptop.umockdev")
        #expect(listing.selected == ["accelerometer": "iio:device0", "gyroscope": "iio:device1", "magnetometer": "iio:device2"])
        let expected: [(SensorKind, String, String, Double)] = [
            (.accelerometer, "iio:device0", "accel_3d", 0.00980665),
            (.gyroscope, "iio:device1", "gyro_3d", 0.000174533),
            (.magnetometer, "iio:device2", "magn_3d", 0.001),
        ]
        #expect(listing.sensors.count == 3)
        for (kind, device, driver, scale) in expected {
            let sensor = try #require(listing.sensors.first { $0.kind == kind })
            #expect(sensor.device == device)
            #expect(sensor.driver == driver)
            #expect(sensor.conversion.scale == Vector3(scale, scale, scale))
            #expect(sensor.axes.map(\.scaleAttribute) == Array(repeating: "in_\(kind.iioChannelType)_scale", count: 3))
            #expect(sensor.axes.map(\.scanType) == Array(repeating: "le:s16/32>>0", count: 3))
            #expect(sensor.samplingFrequency?.attribute == "in_\(kind.iioChannelType)_sampling_frequency")
            #expect(sensor.samplingFrequency?.current == 10)
            #expect(sensor.readMode == .buffered)
            #expect(sensor.trigger == "\(driver)-dev\(device.last!)")
            #expect(sensor.readModeReason.contains("attached"))
            #expect(sensor.mountMatrix.source == "default (identity)")
        }
    }

    @Test("mpu6050 combo: accelerometer and gyroscope on one device, per-type mount matrices")
    func mpu6050() async throws {
        let listing = try await Emulation.listing(fixture: "mpu6050.umockdev")
        #expect(listing.sensors.map(\.kind) == [.accelerometer, .gyroscope])
        #expect(listing.sensors.allSatisfy { $0.device == "iio:device0" && $0.driver == "mpu6050" })
        let accel = listing.sensors[0], gyro = listing.sensors[1]
        #expect(accel.conversion.scale.x == 0.000598)
        #expect(gyro.conversion.scale.z == 0.001064724)
        #expect(accel.mountMatrix.source == "sysfs in_accel_mount_matrix")
        #expect(gyro.mountMatrix.source == "sysfs in_anglvel_mount_matrix")
        // "0, 1, 0; -1, 0, 0; 0, 0, 1", a proper rotation, on a chip that reports the specific
        // force: the accelerometer's made improper (x and y as given, z the gravity vector's), the
        // gyroscope's its negation.
        #expect(accel.mountMatrix.specificForce && gyro.mountMatrix.specificForce)
        #expect(accel.conversion.mountMatrix.matrix.rowMajor == [0, 1, 0, -1, 0, 0, 0, 0, -1])
        #expect(gyro.conversion.mountMatrix.matrix.rowMajor == [0, -1, 0, 1, 0, 0, 0, 0, 1])
        #expect(accel.axes.map(\.scanType) == ["be:s16/16>>0", "be:s16/16>>0", "be:s16/16>>0"])
        #expect(gyro.axes.map(\.scanIndex) == [4, 5, 6])
        #expect(accel.readMode == .buffered)
        #expect(accel.trigger == "mpu6050-dev0")
        #expect(accel.readModeReason.contains("will be attached"))
        #expect(accel.samplingFrequency?.available == .list([10, 20, 50, 100, 200, 500]))
    }

    @Test("st_lsm6dsx split pair: two devices, per-axis scales, shared mount_matrix, no trigger")
    func lsm6dsx() async throws {
        let listing = try await Emulation.listing(fixture: "lsm6dsx.umockdev")
        let accel = try #require(listing.sensors.first { $0.kind == .accelerometer })
        let gyro = try #require(listing.sensors.first { $0.kind == .gyroscope })
        #expect(accel.device == "iio:device0" && accel.driver == "lsm6dsl_accel")
        #expect(gyro.device == "iio:device1" && gyro.driver == "lsm6dsl_gyro")
        #expect(accel.axes.map(\.scaleAttribute) == ["in_accel_x_scale", "in_accel_y_scale", "in_accel_z_scale"])
        #expect(gyro.conversion.scale == Vector3(0.000153, 0.000153, 0.000153))
        #expect(accel.mountMatrix.source == "sysfs mount_matrix")
        // diag(−1, −1, 1) made improper is −I: the gyroscope is read as it comes.
        #expect(accel.conversion.mountMatrix.matrix.rowMajor == [-1, 0, 0, 0, -1, 0, 0, 0, -1])
        #expect(gyro.conversion.mountMatrix.matrix.rowMajor == [1, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(accel.readMode == .buffered)
        #expect(accel.trigger == nil)
        #expect(accel.readModeReason.contains("no trigger needed"))
        #expect(accel.samplingFrequency?.available == .list([12.5, 26, 52, 104, 208, 416]))
    }

    @Test("ak8975 magnetometer: Gauss, per-axis scales, in_mount_matrix, polled")
    func ak8975() async throws {
        let listing = try await Emulation.listing(fixture: "ak8975.umockdev")
        let magn = try #require(listing.sensors.first)
        #expect(listing.sensors.count == 1)
        #expect(magn.kind == .magnetometer && magn.driver == "ak8975")
        #expect(magn.conversion.scale == Vector3(0.003, 0.0029, 0.0031))
        #expect(magn.mountMatrix.source == "sysfs in_mount_matrix")
        #expect(magn.readMode == .polling)
        #expect(magn.readModeReason.contains("no scan elements"))
    }

    @Test("an hmc5883l's scale, a hundredth of Gauss per count, is put right and says so")
    func hmc5843Scale() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Emulation.variant(of: "ak8975.umockdev", in: dir, replacing: [("A: name=ak8975\\n", "A: name=hmc5883l\\n")])
        let magn = try #require(try await Emulation.listing(fixturePath: path).sensors.first)
        #expect(magn.driver == "hmc5883l")
        let scale = magn.conversion.scale
        #expect(abs(scale.x - 0.3) < 1e-12 && abs(scale.y - 0.29) < 1e-12 && abs(scale.z - 0.31) < 1e-12, "the ak8975 fixture's scales, × 100: \(scale)")
        #expect(magn.axes.first?.scaleAttribute?.hasSuffix("× 100 (the hmc5843 driver's scale is a hundredth of Gauss per count (10^7/gain nano))") == true,
                "\(String(describing: magn.axes.first?.scaleAttribute))")
    }

    @Test("offsets at two sharing levels and a scale shared by direction")
    func offsets() async throws {
        let sensor = try #require(try await Emulation.listing(fixture: "offsets.umockdev").sensors.first)
        #expect(sensor.conversion.offset == Vector3(10, -4, -4))
        #expect(sensor.axes.map(\.offsetAttribute) == ["in_accel_x_offset", "in_accel_offset", "in_accel_offset"])
        #expect(sensor.axes.map(\.scaleAttribute) == ["in_scale", "in_scale", "in_scale"])
        #expect(sensor.conversion.scale.y == 0.00980665)
    }

    @Test("mount matrix precedence: hwdb over sysfs, a specific-force chip's improper one used as given, malformed and singular rejected")
    func mountMatrices() async throws {
        let listing = try await Emulation.listing(fixture: "mount-matrix.umockdev")
        #expect(listing.sensors.count == 3)
        let improper = listing.sensors[0], malformed = listing.sensors[1], singular = listing.sensors[2]

        #expect(improper.mountMatrix.source == "udev ACCEL_MOUNT_MATRIX")
        #expect(improper.mountMatrix.given == "0, -1, 0; -1, 0, 0; 0, 0, 1")
        // det [[0,-1,0],[-1,0,0],[0,0,1]] = 0·0 − (−1)·(−1·1 − 0) + 0 = −1: improper, which is what
        // an mxc4005 (specific force) needs: the negation of the rotation its frame is.
        #expect(!improper.mountMatrix.correctedImproper && improper.mountMatrix.specificForce)
        #expect(improper.conversion.mountMatrix.matrix.rowMajor == [0, -1, 0, -1, 0, 0, 0, 0, 1])
        #expect(improper.conversion.scale.x == 0.00980665)
        #expect(improper.axes.first?.scaleAttribute == "scale")

        #expect(malformed.mountMatrix.source == "sysfs in_accel_mount_matrix")
        #expect(malformed.mountMatrix.notes.contains { $0.contains("rejected udev ACCEL_MOUNT_MATRIX '1, 0; 0, 1'") })

        #expect(singular.mountMatrix.source == "default (identity)")
        #expect(singular.conversion.mountMatrix.matrix.rowMajor == [1, 0, 0, 0, 1, 0, 0, 0, -1])
        #expect(singular.mountMatrix.notes.contains { $0.contains("singular") })
    }

    @Test("a HID sensor hub reports the gravity vector: its improper hwdb matrix has its z row negated, its gyroscope's identity stays")
    func hidImproperMatrix() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Emulation.variant(of: "hid-laptop.umockdev", in: dir, replacing: [
            ("E: DEVNAME=/dev/iio:device0\n", "E: DEVNAME=/dev/iio:device0\nE: ACCEL_MOUNT_MATRIX=0, -1, 0; -1, 0, 0; 0, 0, 1\n"),
        ])
        let listing = try await Emulation.listing(fixturePath: path)
        let accel = try #require(listing.sensors.first { $0.kind == .accelerometer })
        let gyro = try #require(listing.sensors.first { $0.kind == .gyroscope })
        #expect(accel.mountMatrix.source == "udev ACCEL_MOUNT_MATRIX")
        #expect(accel.mountMatrix.correctedImproper && !accel.mountMatrix.specificForce)
        #expect(accel.conversion.mountMatrix.matrix.rowMajor == [0, -1, 0, -1, 0, 0, 0, 0, -1])
        #expect(accel.mountMatrix.notes.contains { $0.contains("is improper (determinant -1): negated its z row") })
        #expect(!gyro.mountMatrix.specificForce && gyro.conversion.mountMatrix == .identity)
    }

    @Test("a configured mount matrix wins over hwdb and sysfs")
    func configuredMountMatrix() async throws {
        let listing = try await Emulation.listing(fixture: "mount-matrix.umockdev",
                                            extra: ["--mount-matrix", "iio:device0/accelerometer=1, 0, 0; 0, 0, -1; 0, 1, 0"])
        #expect(listing.sensors[0].mountMatrix.source == "configuration")
        // Proper, on a specific-force chip: made improper (z row negated).
        #expect(listing.sensors[0].conversion.mountMatrix.matrix.rowMajor == [1, 0, 0, 0, 0, -1, 0, -1, 0])
        // Only the named device is overridden.
        #expect(listing.sensors[1].mountMatrix.source == "sysfs in_accel_mount_matrix")
    }

    @Test("convertibles: the display accelerometer is used, the base one kept; label, location, hwdb")
    func convertible() async throws {
        let listing = try await Emulation.listing(fixture: "convertible.umockdev")
        let locations = listing.sensors.map { "\($0.device) \($0.location.rawValue) \($0.locationSource)" }
        #expect(locations == [
            "iio:device0 base label",
            "iio:device1 display label",
            "iio:device2 base sysfs location",
            "iio:device3 display sysfs location",
            "iio:device4 base udev ACCEL_LOCATION",
        ])
        #expect(listing.selected["accelerometer"] == "iio:device1")
    }

    @Test("broken devices are skipped with a reason naming device and attribute; the rest works")
    func garbage() async throws {
        let listing = try await Emulation.listing(fixture: "garbage.umockdev")
        #expect(listing.sensors.map(\.device) == ["iio:device3"])
        #expect(listing.selected == ["gyroscope": "iio:device3"])
        let reasons = Dictionary(uniqueKeysWithValues: listing.skipped.map { ($0.device, $0.reason) })
        #expect(reasons["iio:device0"] == "in_accel_scale has unparseable value '0,0383'")
        #expect(reasons["iio:device1"] == "has accel channels but no in_accel_z")
        #expect(reasons["iio:device2"] == "in_accel_z_raw has unparseable value '12x34'")
        #expect(listing.skipped.allSatisfy { $0.kind == .accelerometer && $0.driver != nil })
    }

    @Test("a buffer left enabled with nobody holding the device is planned for takeover, said in the listing")
    func abandonedBuffer() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // buffer/enable = 1 but /dev/iio:device0 opens: the program that enabled it is gone
        // (what a killed motiond leaves behind). A buffer really held elsewhere makes open()
        // fail with EBUSY, which umockdev cannot emulate. The clock is the boottime motiond sets.
        let path = try Emulation.variant(of: "mpu6050.umockdev", in: dir, replacing: [("A: buffer/enable=0", "A: buffer/enable=1"),
                                                                                      ("A: current_timestamp_clock=realtime", "A: current_timestamp_clock=boottime")])
        let listing = try await Emulation.listing(fixturePath: path)
        #expect(listing.sensors.allSatisfy { $0.readMode == .buffered })
        #expect(listing.sensors.allSatisfy { $0.readModeReason.contains("left enabled by a motiond that is gone (the boottime clock it sets while reading)") })
    }

    @Test("an enabled buffer that opens, its clock not motiond's, is iio-sensor-proxy's while it runs (its name owned on the system bus) and when nothing can tell: polling")
    func bufferEnabledByAnotherProgram() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // What iio-sensor-proxy leaves between its reads: enabled, /dev/iio:device0 closed, the
        // kernel's realtime clock (the system tier's case: motiond took such a buffer over and
        // the peer's monitor-sensor saw no orientation change after that).
        let path = try Emulation.variant(of: "mpu6050.umockdev", in: dir, replacing: [("A: buffer/enable=0", "A: buffer/enable=1")])
        // No system bus to ask.
        let unknown = try await Emulation.listing(fixturePath: path)
        #expect(unknown.sensors.allSatisfy { $0.readMode == .polling })
        #expect(unknown.sensors.allSatisfy { $0.readModeReason.contains("another program keeps it enabled and opens it only to read, as iio-sensor-proxy does (the system bus cannot say who owns net.hadess.SensorProxy") },
                "\(unknown.sensors.map(\.readModeReason))")
        // A bus on which the peer's name is owned (python-dbusmock standing in for it there).
        let bus = try await SystemBus()
        let peer = try RunningProcess(["/usr/bin/python3", "-m", "dbusmock", "--system", "net.hadess.SensorProxy", "/net/hadess/SensorProxy",
                                       "net.hadess.SensorProxy"], environment: bus.environment())
        defer { peer.terminate() }
        try #require(try await bus.waitForOwner("net.hadess.SensorProxy"), "python3-dbusmock owns the name: \(peer.stderr)")
        let running = try await Emulation.listing(fixturePath: path, environment: bus.environment())
        #expect(running.sensors.allSatisfy { $0.readMode == .polling })
        #expect(running.sensors.allSatisfy { $0.readModeReason.contains("opens it only to read, as iio-sensor-proxy does (process \(peer.pid) owns net.hadess.SensorProxy on the system bus)") },
                "\(running.sensors.map(\.readModeReason))")
    }

    @Test("the same buffer once iio-sensor-proxy has stopped (nobody owns its name on the system bus) is planned for takeover")
    func bufferLeftByStoppedPeer() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A package swap or `systemctl stop` ends iio-sensor-proxy with its buffers enabled.
        let path = try Emulation.variant(of: "mpu6050.umockdev", in: dir, replacing: [("A: buffer/enable=0", "A: buffer/enable=1")])
        let bus = try await SystemBus()
        let listing = try await Emulation.listing(fixturePath: path, environment: bus.environment())
        #expect(listing.sensors.allSatisfy { $0.readMode == .buffered })
        #expect(listing.sensors.allSatisfy { $0.readModeReason.contains("left enabled by iio-sensor-proxy, which has stopped (nobody owns net.hadess.SensorProxy on the system bus), and will be taken over") },
                "\(listing.sensors.map(\.readModeReason))")
    }

    @Test("a buffer whose device node cannot be opened is left alone: polling")
    func unopenableBuffer() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Enabled, and no /dev node at all (the N: line removed): motiond cannot tell who holds
        // it, so it does not touch it.
        let path = try Emulation.variant(of: "mpu6050.umockdev", in: dir,
                                         replacing: [("A: buffer/enable=0", "A: buffer/enable=1"), ("N: iio:device0\n", "")])
        let listing = try await Emulation.listing(fixturePath: path)
        #expect(listing.sensors.allSatisfy { $0.readMode == .polling })
        #expect(listing.sensors.allSatisfy { $0.readModeReason.contains("in use by another program") })
    }

    @Test("the text listing tells a person the same facts")
    func textListing() async throws {
        let output = try await Emulation.motiond(fixture: "mount-matrix.umockdev", ["--list-sensors"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("accelerometer — iio:device0 mxc4005 [used]"))
        #expect(output.stdout.contains("mount matrix 0, -1, 0; -1, 0, 0; 0, 0, 1 from udev ACCEL_MOUNT_MATRIX (given '0, -1, 0; -1, 0, 0; 0, 0, 1'; specific force: x and y as given, z for the gravity vector)"),
                "\(output.stdout)")
        #expect(output.stdout.contains("read mode    polling: no scan elements"))
    }

    @Test("light and proximity: a HID light sensor's lux channel (buffered), a processed-only one, raw × scale beside a proximity sensor; near levels from sysfs, none or a bad udev one skipped with the reason")
    func lightAndProximity() async throws {
        let listing = try await Emulation.listing(fixture: "light-proximity.umockdev")
        #expect(listing.selected == ["light": "iio:device0", "proximity": "iio:device2"])
        let lights = listing.sensors.filter { $0.kind == .light }
        #expect(lights.map(\.device) == ["iio:device0", "iio:device1", "iio:device2"])

        let hid = lights[0]
        #expect(hid.driver == "als")
        #expect(hid.axes.map(\.channel) == ["in_illuminance"], "the lux channel before in_intensity_both")
        #expect(hid.axes.map(\.valueAttribute) == ["raw"])
        #expect(hid.axes.first?.scanType == "le:s32/32>>0")
        #expect(hid.conversion.convert(raw: Vector3(1234, 0, 0)).x == 1234 * 0.1)
        #expect(hid.readMode == .buffered && hid.trigger == "als-dev0")
        #expect(hid.samplingFrequency?.attribute == "in_illuminance_sampling_frequency")

        let processed = lights[1]
        #expect(processed.driver == "opt3001")
        #expect(processed.axes.map(\.valueAttribute) == ["input"])
        #expect(processed.axes.first?.scaleAttribute == nil)
        #expect(processed.conversion.convert(raw: Vector3(42.56, 0, 0)).x == 42.56)
        #expect(processed.readMode == .polling)
        #expect(processed.readModeReason.contains("in_illuminance_input"))

        let combo = lights[2]
        #expect(combo.driver == "vcnl4000" && combo.conversion.scale.x == 0.25 && combo.readMode == .polling)

        let proximity = try #require(listing.sensors.first { $0.kind == .proximity })
        #expect(proximity.device == "iio:device2")
        #expect(proximity.nearLevel?.value == 220 && proximity.nearLevel?.source == "sysfs in_proximity_nearlevel")
        #expect(proximity.conversion.convert(raw: Vector3(220, 0, 0)).x == 1, "readings in near levels")
        #expect(proximity.mountMatrix.source.hasPrefix("none"))

        #expect(listing.skipped.map(\.device) == ["iio:device3", "iio:device4"])
        #expect(listing.skipped[0].kind == .proximity && listing.skipped[0].reason.contains("no near level"), "\(listing.skipped)")
        #expect(listing.skipped[1].reason.contains("PROXIMITY_NEAR_LEVEL 'near' is not a positive number"))

        let text = try await Emulation.motiond(fixture: "light-proximity.umockdev", ["--list-sensors"])
        #expect(text.stdout.contains("light — iio:device0 als [used]"))
        #expect(text.stdout.contains("value        in_illuminance_input (processed, lx)"))
        #expect(text.stdout.contains("near level   220 from sysfs in_proximity_nearlevel"))
        #expect(!text.stdout.contains("mount matrix"), "no mount matrix for scalar sensors")
    }

    @Test("no IIO devices at all: a clear error, exit status 1")
    func noDevices() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("empty.umockdev").path
        // A machine with a USB device but no IIO subsystem.
        try "P: /devices/pci0000:00/usb1\nE: SUBSYSTEM=usb\nA: idVendor=1d6b\\n\n".write(toFile: path, atomically: true, encoding: .utf8)
        let output = try await Emulation.motiond(fixturePath: path, ["--list-sensors"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot") || output.stderr.contains("open IIO context"))
    }
}
