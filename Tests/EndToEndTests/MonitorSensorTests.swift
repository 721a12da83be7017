import Foundation
import Glibc
@testable import TestSupport
import Testing

/// motiond's `monitor-sensor` (the `motionctl` binary through a link of that name, which the
/// motiond-sensor-proxy package installs in place of iio-sensor-proxy's) beside Debian's own,
/// on the same private system bus, against motiond's D-Bus face and against iio-sensor-proxy:
/// line for line the same. Two of our lines are upstream 3.9's that Debian's 3.0 does not
/// print (``upstream30``): the tilt.
extension HotplugTests {
    /// Our monitor-sensor: a link named `monitor-sensor` to the `motionctl` built beside motiond,
    /// in a fresh directory (removed by the caller), with `options`.
    static func ourMonitorSensor(_ directory: URL, _ options: String) throws -> String {
        let link = directory.appendingPathComponent("monitor-sensor").path
        let motionctl = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motionctl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: motionctl)
        return "\(link) \(options)"
    }

    /// Our lines as Debian's monitor-sensor 3.0 prints them: without upstream 3.9's tilt (its
    /// `Tilt changed` lines and the `, tilt: …` of the accelerometer's first line).
    static func upstream30(_ lines: [String]) -> [String] {
        lines.filter { !$0.hasPrefix("    Tilt changed: ") }.map { line in
            guard line.hasPrefix("=== Has accelerometer (orientation: "), let tilt = line.range(of: ", tilt: ") else { return line }
            return String(line[..<tilt.lowerBound]) + ")"
        }
    }

    /// Both monitors on one daemon: Debian's started first, ours once Debian's has claimed and
    /// shown its values; then the scenario's steps. Each monitor's lines.
    static func watchBoth(_ command: [String], locale: [String: String] = [:]) async throws -> (debian: [String], ours: [String]) {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desk = try await DeskProxy(command, locale: locale)
        let (testbed, bus, daemon) = (desk.testbed, desk.bus, desk.daemon)
        defer { withExtendedLifetime(desk) {} } // the daemon runs until the end
        // One after the other: a monitor-sensor shows the values it read before its claims, so
        // one that read them before the other's claims started the sensors would show them late
        // or not at all (the values come as changes only to the claimants of the time).
        // Debian's 3.0 claims these three (the compass only as the user geoclue).
        let debian = try MonitorSensor(bus: bus)
        try await settle(debian, "Debian's", daemon)
        let ours = try MonitorSensor(bus: bus, program: try ourMonitorSensor(directory, "--accel --light --proximity"))
        try await settle(ours, "our", daemon)
        for step in scenario {
            let before = (debian.lines.count, ours.lines.count)
            for change in step.changes { testbed.setAttribute(change.device, change.attribute, change.value + "\n") }
            for (monitor, from) in [(debian, before.0), (ours, before.1)] {
                guard await monitor.wait(for: step.line, from: from, timeout: 10) != nil else {
                    throw TestFailure("\(command[0]): no '\(step.line)'; Debian's: \(debian.lines.map(\.text)); ours: \(ours.lines.map(\.text))")
                }
            }
            try await Task.sleep(for: .milliseconds(900))
        }
        return (debian.lines.map(\.text), ours.lines.map(\.text))
    }

    /// Waits for a monitor-sensor's values, then for the changes its claims brought
    /// (iio-sensor-proxy 3.0 answers a claim before its first reading and sends the values as
    /// changes within one poll, 700 ms).
    static func settle(_ monitor: MonitorSensor, _ name: String, _ daemon: RunningProcess) async throws {
        guard await monitor.wait(for: "=== Has proximity sensor", timeout: 20) != nil else {
            throw TestFailure("\(name) monitor-sensor never showed its values: \(monitor.lines.map(\.text)); \(monitor.stderr); daemon: \(daemon.stderr.suffix(2000))")
        }
        try await Task.sleep(for: .milliseconds(1600))
    }

    @Test("our monitor-sensor prints Debian's monitor-sensor's lines (less upstream 3.9's tilt) for the same scenario, against motiond and against iio-sensor-proxy",
          .enabled(if: hasDBusTools && iioSensorProxy != nil, "needs dbus-daemon, busctl, gdbus, monitor-sensor and iio-sensor-proxy (scripts/install-deps.sh test)"))
    func monitorSensorSameLines() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in [Self.motiondSensorProxy(directory), [try #require(Self.iioSensorProxy), "-v"]] {
            let seen = try await Self.watchBoth(command)
            let start = { (lines: [String]) in lines.firstIndex(of: Self.scenario[0].line) ?? lines.count }
            let ours = Self.upstream30(seen.ours)
            // From the first step on: the same lines, in the same order.
            #expect(Array(ours[start(ours)...]) == Array(seen.debian[start(seen.debian)...]),
                    "\(command[0]): ours \(seen.ours)\nDebian's \(seen.debian)")
            #expect(Array(ours[start(ours)...]) == Self.scenario.map(\.line))
            // Before it: the same values once start-up is over (ours started after Debian's had
            // claimed, so it read the values Debian's saw arrive as changes).
            #expect(Self.state(Array(ours[..<start(ours)])) == Self.state(Array(seen.debian[..<start(seen.debian)])), "\(command[0]): ours \(seen.ours)\nDebian's \(seen.debian)")
            #expect(Array(ours.prefix(2)) == ["    Waiting for iio-sensor-proxy to appear", "+++ iio-sensor-proxy appeared"], "\(seen.ours)")
            #expect(Array(ours.prefix(2)) == Array(seen.debian.prefix(2)))
            #expect(seen.ours.contains { $0.hasPrefix("=== Has accelerometer (orientation: normal, tilt: ") } || command[0] != Self.motiondSensorProxy(directory)[0],
                    "motiond serves the tilt: \(seen.ours)")
        }
    }

    @Test("our monitor-sensor: --accel claims and shows the accelerometer only; no option is every sensor (=== No compass without one); the service leaving and coming back is shown as Debian's shows it",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func monitorSensorOptionsAndRestart() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("desk.umockdev"))
        let bus = try await SystemBus()
        let polkit = try await bus.startPolkit(allowing: [Self.claimAction])
        defer { polkit?.terminate() }
        let command = Self.motiondSensorProxy(directory)
        var daemon = try RunningProcess(command, environment: bus.environment(testbed.environment))
        // Once the service shows its sensors (motiond owns the name before it has looked for
        // them: a monitor-sensor that came first would show "=== No accelerometer", then
        // "+++ Accelerometer appeared").
        let deadline = Date().addingTimeInterval(20)
        while try await bus.busctl(["get-property", "net.hadess.SensorProxy"] + Self.proxyObject + ["HasProximity"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "b true" {
            guard Date() < deadline else { throw TestFailure("motiond never showed the proximity sensor: \(daemon.stderr.suffix(2000))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let accelOnly = try MonitorSensor(bus: bus, program: try Self.ourMonitorSensor(directory, "--accel"))
        let all = try MonitorSensor(bus: bus, program: "\(directory.path)/monitor-sensor")
        let debian = try MonitorSensor(bus: bus)
        #expect(await accelOnly.wait(for: "=== Has accelerometer", timeout: 20) != nil, "\(accelOnly.lines.map(\.text)); \(accelOnly.stderr)")
        #expect(await all.wait(for: "=== No compass", timeout: 20) != nil, "\(all.lines.map(\.text)); \(all.stderr)")
        #expect(await debian.wait(for: "=== Has proximity sensor", timeout: 20) != nil, "\(debian.lines.map(\.text))")
        let shown = { (monitor: MonitorSensor) in monitor.lines.map(\.text).filter { $0.hasPrefix("===") }.map { $0.components(separatedBy: " (")[0] } }
        #expect(shown(accelOnly) == ["=== Has accelerometer"], "\(accelOnly.lines.map(\.text))")
        #expect(shown(all) == ["=== Has accelerometer", "=== Has ambient light sensor", "=== Has proximity sensor", "=== No compass"], "\(all.lines.map(\.text))")
        #expect(Array(shown(all).prefix(3)) == shown(debian))

        // The service goes and comes back: each monitor says so, and claims again.
        let before = (accelOnly.lines.count, debian.lines.count)
        _ = daemon.stop()
        for monitor in [accelOnly, debian] {
            #expect(await monitor.wait(for: "--- iio-sensor-proxy vanished, waiting for it to appear", timeout: 10) != nil, "\(monitor.lines.map(\.text))")
        }
        daemon = try RunningProcess(command, environment: bus.environment(testbed.environment))
        defer { daemon.terminate() }
        for (monitor, from) in [(accelOnly, before.0), (debian, before.1)] {
            #expect(await monitor.wait(for: "+++ iio-sensor-proxy appeared", from: from, timeout: 20) != nil, "\(monitor.lines.map(\.text))")
        }
        let after = { (monitor: MonitorSensor, from: Int) in Array(monitor.lines.map(\.text)[from...].prefix(2)) }
        #expect(after(accelOnly, before.0) == ["--- iio-sensor-proxy vanished, waiting for it to appear", "+++ iio-sensor-proxy appeared"])
        #expect(after(accelOnly, before.0) == after(debian, before.1))
        #expect(accelOnly.isRunning && all.isRunning)
    }

    @Test("our monitor-sensor with its claim refused (polkit says no): the same lines as Debian's, the reason on standard error, exit status 0 as Debian's",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func monitorSensorRefused() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("desk.umockdev"))
        let bus = try await SystemBus()
        let polkit = try await bus.startPolkit(allowing: [])
        defer { polkit?.terminate() }
        let daemon = try RunningProcess(Self.motiondSensorProxy(directory), environment: bus.environment(testbed.environment))
        defer { daemon.terminate() }
        guard try await bus.waitForOwner("net.hadess.SensorProxy") else { throw TestFailure("motiond did not own the name: \(daemon.stderr.suffix(2000))") }
        try #require(polkit != nil, "python3-dbusmock's polkit stand-in")
        let link = try Self.ourMonitorSensor(directory, "")
        let ours = try await Emulation.run(["sh", "-c", link], environment: bus.environment(), timeout: 30)
        let debian = try await Emulation.run(["monitor-sensor"], environment: bus.environment(), timeout: 30)
        #expect(ours.status == 0 && debian.status == 0, "ours \(ours.status) \(ours.stderr); Debian's \(debian.status) \(debian.stderr)")
        #expect(ours.stdout == debian.stdout, "ours: \(ours.stdout); Debian's: \(debian.stdout)")
        #expect(ours.stdout == "    Waiting for iio-sensor-proxy to appear\n+++ iio-sensor-proxy appeared\n")
        #expect(ours.stderr.hasPrefix("monitor-sensor: Failed to claim accelerometer: org.freedesktop.DBus.Error.AccessDenied"), "\(ours.stderr)")
        #expect(debian.stderr.contains("Failed to claim accelerometer"), "\(debian.stderr)")
    }
}
