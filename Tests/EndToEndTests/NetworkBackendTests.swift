import Foundation
import Glibc
import MotionCore
import MotionIIO
@testable import TestSupport
import Testing

/// The libiio network backend (`ip:HOST:PORT`) against a real `iiod` on loopback serving an
/// emulated mpu6050 (umockdev), including its buffered feed.
@Suite("Network backend through iiod on loopback")
struct NetworkBackendTests {
    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestFailure("cannot find a free port: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// True once something accepts TCP connections on 127.0.0.1:port.
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    @Test("list sensors and stream buffered samples from iiod serving an emulated mpu6050")
    func iiodLoopback() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = 30
        var script = ScanScript()
        for i in 0..<count {
            script.read(ScanScript.mpu6050Scan(accel: [Int16(i), 0, -1000], gyro: [0, Int16(i), 0],
                                               nanoseconds: Int64(2_000_000_000 + i * 10_000_000)), delay: 5)
        }
        let scriptPath = dir.appendingPathComponent("feed.script")
        try script.write(to: scriptPath)

        let port = try Self.freePort()
        let server = try RunningProcess(["umockdev-run", "-d", Emulation.fixture("mpu6050.umockdev"),
                                         "-s", "/dev/iio:device0=\(scriptPath.path)", "--", "iiod", "-p", "\(port)"])
        defer { server.terminate() }
        let deadline = Date().addingTimeInterval(15)
        while !Self.accepts(port) && Date() < deadline && server.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        try #require(Self.accepts(port), "iiod did not listen: \(server.stderr)")

        let uri = "ip:127.0.0.1:\(port)"
        let listed = try await Emulation.run([Emulation.motiond, "--source", uri, "--list-sensors", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let listing = try JSONDecoder().decode(SensorListing.self, from: Data(listed.stdout.utf8))
        #expect(listing.source == uri)
        #expect(listing.sensors.map(\.kind) == [.accelerometer, .gyroscope])
        let accelSensor = listing.sensors[0], gyroSensor = listing.sensors[1]
        // The same numbers as the local backend reads (DiscoveryTests.mpu6050), through iiod.
        #expect(accelSensor.conversion.scale == Vector3(0.000598, 0.000598, 0.000598))
        #expect(accelSensor.axes.map(\.scaleAttribute) == ["in_accel_scale", "in_accel_scale", "in_accel_scale"])
        #expect(gyroSensor.conversion.scale.x == 0.001064724)
        #expect(accelSensor.mountMatrix.source == "sysfs in_accel_mount_matrix")
        // A specific-force chip's, made improper (DiscoveryTests.mpu6050).
        #expect(accelSensor.conversion.mountMatrix.matrix.rowMajor == [0, 1, 0, -1, 0, 0, 0, 0, -1])
        #expect(accelSensor.samplingFrequency?.current == 50)
        #expect(accelSensor.readMode == .buffered && accelSensor.trigger == "mpu6050-dev0")

        let before = Emulation.bootTime()
        let output = try await Emulation.run([Emulation.motiond, "--source", uri, "--print-samples", "--json",
                                        "--count", "\(2 * count)", "--interval", "0.01"])
        let after = Emulation.bootTime()
        #expect(output.status == 0, "\(output.stderr)")
        let accel = output.samples("accelerometer"), gyro = output.samples("gyro")
        #expect(accel.count == count && gyro.count == count)
        // The remote kernel's clock is not this machine's boot clock: samples are stamped on
        // arrival, in order.
        #expect(accel.allSatisfy { $0.timestamp >= before && $0.timestamp <= after })
        #expect(zip(accel, accel.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
        for (i, sample) in accel.enumerated() {
            // raw (i, 0, −1000) × 0.000598 through [0 1 0; −1 0 0; 0 0 −1] → (0, −i, 1000) × 0.000598 ÷ g
            #expect(abs(sample.y - Double(-i) * 0.000598 / 9.80665) < 1e-12)
            #expect(abs(sample.z - 1000 * 0.000598 / 9.80665) < 1e-12)
        }
        for (i, sample) in gyro.enumerated() {
            // raw (0, i, 0) × 0.001064724 through [0 −1 0; 1 0 0; 0 0 1] → (−i, 0, 0) × 0.001064724
            #expect(abs(sample.x - Double(-i) * 0.001064724) < 1e-12)
        }
        #expect(output.availability("accelerometer").first?.mode == "buffered")
    }

    @Test("an unreachable iiod is a clear error")
    func unreachable() async throws {
        let port = try Self.freePort()
        let output = try await Emulation.run([Emulation.motiond, "--source", "ip:127.0.0.1:\(port)", "--list-sensors"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("open IIO context 'ip:127.0.0.1:\(port)'"))
    }
}
