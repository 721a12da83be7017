import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// The rest rate on a buffered accelerometer (an st_lsm6dsx fed by a umockdev script): at rest
/// the buffer is reopened to sample slower and deliver a batch per rest interval.
extension HotplugTests {
    @Test("a buffered accelerometer at rest is reopened to sample at 26 Hz (the lsm6dsx's nearest to the 20 Hz asked at rest) and deliver 7 scans per wake-up; a turn brings 52 Hz back, one scan per read; read through the buffer throughout")
    func restBatches() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 20 s of scans 20 ms apart (umockdev plays them whatever the frequency): lying portrait
        // (−y up: raw y −16400 ≈ 1 G) for 8 s, then turned onto its side (x) and still again.
        var script = ScanScript()
        for i in 0..<1000 {
            let raw: [Int16] = i < 400 ? [0, 16_400, 0] : [16_400, 0, 0]
            script.read(ScanScript.lsm6dsxScan(raw, nanoseconds: Int64(5_000_000_000 + i * 20_000_000)), delay: i == 0 ? 300 : 20)
        }
        let path = dir.appendingPathComponent("accel.script")
        try script.write(to: path)
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("lsm6dsx.umockdev"))
        try testbed.loadScript("/dev/iio:device0", path.path)
        let daemon = try ServedDaemon(["--source", "local:", "--sensors", "accelerometer"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        let watcher = try await daemon.connect()
        let asker = try await daemon.connect()
        try await watcher.send(.subscribe(.init(id: 1, stream: .orientation)))
        #expect(try await watcher.next(type: "orientation", timeout: 10)?["orientation"] as? String == "portrait")
        var id = 100
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 7) { $0 == 0.35 })
        // 20 ms asked, 52 Hz in force (the lsm6dsx's list) while moving; at rest 50 ms asked,
        // 26 Hz in force, 7 scans per 0.35 s.
        let batched = await daemon.process.wait(timeout: 5) { $0.stderr.contains("buffered, every 38.5 ms, 7 scans per wake-up") }
        #expect(batched, "\(daemon.process.stderr)")
        let frequency = testbed.root + "/sys/bus/iio/devices/iio:device0/sampling_frequency"
        #expect(try String(contentsOfFile: frequency, encoding: .utf8).hasPrefix("26"))
        // The turn ends the rest: the full rate comes back, then the rest again.
        let turned = try await watcher.next(type: "orientation", timeout: 10)
        #expect(turned?["orientation"] as? String == "landscapeLeft", "\(String(describing: turned)) \(daemon.process.stderr)")
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 })
        // The status says rest once the pipeline asks for it; the source replaces the reader
        // after that, on its own queue, and logs its pace then (a sanitizer's build takes longer).
        let rebatched = await daemon.process.wait(timeout: 5) { $0.stderr.components(separatedBy: "7 scans per wake-up").count >= 3 }
        #expect(rebatched, "\(daemon.process.stderr)")
        let paces = daemon.process.stderr.split(separator: "\n").filter { $0.contains("reading accelerometer from iio:device0") }.map {
            $0.contains("every 19.2 ms") && !$0.contains("scans per wake-up") ? "52 Hz" : $0.contains("every 38.5 ms, 7 scans per wake-up") ? "26 Hz" : String($0)
        }
        #expect(paces == ["52 Hz", "26 Hz", "52 Hz", "26 Hz"], "\(daemon.process.stderr)")
        #expect(!daemon.process.stderr.contains("polling"), "read through the buffer, never polled: \(daemon.process.stderr)")
    }
}

extension HotplugTests {
    @Test("at rest, a device whose motion events cannot wake motiond (umockdev refuses the event ioctl) is read every rest interval, said once, its event attributes untouched")
    func restWithoutUsableEvents() async throws {
        let testbed = Testbed()
        // Only the mma8452 (x/y/z transient events), lying face up; polled (no buffer feed).
        let fixture = try Emulation.fixtureText("motion-events.umockdev")
        let second = try #require(fixture.range(of: "P: /devices/platform/soc/i2c-2/"))
        try testbed.add(String(fixture[..<second.lowerBound]))
        let daemon = try ServedDaemon(["--source", "local:", "--sensors", "accelerometer"], environment: testbed.environment)
        defer { _ = daemon.stop() }
        let watcher = try await daemon.connect()
        let asker = try await daemon.connect()
        try await watcher.send(.subscribe(.init(id: 1, stream: .orientation)))
        var id = 100
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 })
        let said = await daemon.process.wait(timeout: 5) { $0.stderr.contains("cannot wake motiond when it moves") }
        #expect(said, "\(daemon.process.stderr)")
        // Moving and resting again does not try (or say) it again.
        testbed.setAttribute("/sys/devices/platform/soc/i2c-1/1-001d/iio:device0", "in_accel_x_raw", "300\n")
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == nil })
        #expect(try await Self.waitForRest(asker, from: &id, timeout: 10) { $0 == 0.35 })
        #expect(daemon.process.stderr.components(separatedBy: "cannot wake motiond when it moves").count == 2, "said once")
        let events = testbed.root + "/sys/devices/platform/soc/i2c-1/1-001d/iio:device0/events/"
        for (name, value) in [("in_accel_x_mag_rising_en", "0"), ("in_accel_mag_rising_value", "127"), ("in_accel_mag_rising_period", "0.000000")] {
            let text = try String(contentsOfFile: events + name, encoding: .utf8)
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))) == value, "\(name)")
        }
    }
}
