import Foundation
import Glibc
@testable import TestSupport
import Testing

/// A Qt application on the D-Bus face: QtSensors' own iio-sensor-proxy backend (Debian's
/// python3-pyqt5.qtsensors, through Tests/System/qt-sensors.py, which the system tier runs on
/// the real system bus) reads the same orientations and light levels from motiond as from
/// iio-sensor-proxy for the same device changes, on a private bus and emulated sensors.
extension HotplugTests {
    static var hasQtSensors: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/PyQt5/QtSensors.abi3.so")
    }

    /// The scenario's steps as Qt reads them (its orientation names; light in lux, one decimal).
    static let qtReadings = ["orientation LeftUp", "orientation TopDown", "orientation RightUp", "orientation TopUp", "light 250.0"]

    /// Plays the scenario's orientation and light steps with `command` serving the bus, watched
    /// by the Qt application; its lines from the first step on, and before it.
    static func qtScenario(_ command: [String]) async throws -> (before: [String], steps: [String]) {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("desk.umockdev"))
        let bus = try await SystemBus()
        let polkit = try await bus.startPolkit(allowing: [claimAction])
        defer { polkit?.terminate() }
        let daemon = try RunningProcess(command, environment: bus.environment(testbed.environment))
        defer { daemon.terminate() }
        guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
            throw TestFailure("\(command[0]) did not own net.hadess.SensorProxy: \(daemon.stderr.suffix(2000))")
        }
        let script = Emulation.packageRoot.appendingPathComponent("Tests/System/qt-sensors.py").path
        let qt = try RunningProcess(["/usr/bin/python3", script, "120"], environment: bus.environment())
        defer { qt.terminate() }
        let lines = { qt.stdout.split(separator: "\n").map(String.init) }
        guard await qt.wait(timeout: 20, for: { $0.stdout.contains("orientation TopUp") && $0.stdout.contains("light 100.0") }) else {
            throw TestFailure("\(command[0]): Qt read no orientation and light: \(lines()) \(qt.stderr.suffix(1000))")
        }
        try await Task.sleep(for: .milliseconds(1600))
        let before = lines()
        // The orientation and light steps (Qt's backend reads no proximity).
        for (step, reading) in zip(scenario.prefix(5), qtReadings) {
            for change in step.changes { testbed.setAttribute(change.device, change.attribute, change.value + "\n") }
            guard await qt.wait(timeout: 10, for: { $0.stdout.split(separator: "\n").dropFirst(before.count).contains { $0 == reading } }) else {
                throw TestFailure("\(command[0]): Qt never read '\(reading)': \(lines()); \(qt.stderr.suffix(1000))")
            }
            try await Task.sleep(for: .milliseconds(900))
        }
        return (before, Array(lines().dropFirst(before.count)))
    }

    @Test("QtSensors (its iio-sensor-proxy backend) reads the same orientations and light levels from motiond as from iio-sensor-proxy",
          .enabled(if: hasDBusTools && iioSensorProxy != nil && hasQtSensors, "needs dbus-daemon, iio-sensor-proxy and python3-pyqt5.qtsensors"))
    func qtSensorsSameReadings() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ours = try await Self.qtScenario(Self.motiondSensorProxy(directory))
        let theirs = try await Self.qtScenario([try #require(Self.iioSensorProxy), "-v"])
        #expect(ours.steps == Self.qtReadings, "motiond: \(ours.steps)")
        #expect(ours.steps == theirs.steps, "motiond: \(ours.steps)\niio-sensor-proxy: \(theirs.steps)")
        // Start-up: the last orientation and light read before the first step.
        let last = { (lines: [String], kind: String) in lines.last { $0.hasPrefix(kind) } }
        #expect(last(ours.before, "orientation") == last(theirs.before, "orientation") && last(ours.before, "light") == last(theirs.before, "light"),
                "motiond: \(ours.before); iio-sensor-proxy: \(theirs.before)")
    }
}
