import Foundation
import Glibc
import Testing

/// motiond's D-Bus face end to end, against real parts: a private system bus (dbus-daemon with
/// motiond's policy file), python-dbusmock's polkit, Debian's `monitor-sensor` and `busctl` as
/// the clients, emulated sensors (a live umockdev testbed, hence the serialized hot-plug
/// suite) — and iio-sensor-proxy itself on the same device and scenario, side by side.
extension HotplugTests {
    static let desktopAccel = restAccelSyspath
    static let claimAction = "net.hadess.SensorProxy.claim-sensor"
    static let proxyObject = ["/net/hadess/SensorProxy", "net.hadess.SensorProxy"]

    /// iio-sensor-proxy's daemon where Debian puts it (`/usr/sbin` in 3.0, `/usr/libexec` later).
    static var iioSensorProxy: String? {
        ["/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var hasDBusTools: Bool {
        ["/usr/bin/dbus-daemon", "/usr/bin/busctl", "/usr/bin/monitor-sensor", "/usr/bin/gdbus"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// One step of the shared scenario: attribute changes (in order) and the line
    /// `monitor-sensor` prints for it.
    struct ScenarioStep: Sendable {
        var changes: [(device: String, attribute: String, value: String)]
        var line: String
    }

    /// The four screen orientations, in an order that never passes through an ambiguous pose
    /// between two attribute writes (the intermediate poses are diagonals, where both daemons
    /// keep their orientation). Light and proximity are not served by motiond yet.
    static let scenario: [ScenarioStep] = [
        .init(changes: [(desktopAccel, "in_accel_x_raw", "256"), (desktopAccel, "in_accel_y_raw", "0")],
              line: "    Accelerometer orientation changed: left-up"),
        .init(changes: [(desktopAccel, "in_accel_y_raw", "256"), (desktopAccel, "in_accel_x_raw", "0")],
              line: "    Accelerometer orientation changed: bottom-up"),
        .init(changes: [(desktopAccel, "in_accel_x_raw", "-256"), (desktopAccel, "in_accel_y_raw", "0")],
              line: "    Accelerometer orientation changed: right-up"),
        .init(changes: [(desktopAccel, "in_accel_y_raw", "-256"), (desktopAccel, "in_accel_x_raw", "0")],
              line: "    Accelerometer orientation changed: normal"),
    ]

    /// What one daemon showed `monitor-sensor` in the scenario.
    struct ScenarioRun {
        /// The state after start-up: orientation, light and proximity as the last lines
        /// before the first step gave them.
        var initial: [String: String]
        /// Every line from the first step on.
        var lines: [String]
        /// Seconds from each step's last attribute write to its line.
        var latencies: [Double]
    }

    /// The sensors' state in `monitor-sensor`'s lines: the `=== Has …` line's value, then every
    /// change.
    static func state(_ lines: [String]) -> [String: String] {
        var state: [String: String] = [:]
        for line in lines {
            if let value = line.between("=== Has accelerometer (orientation: ", ")") { state["orientation"] = value }
            if let value = line.between("=== Has ambient light sensor (value: ", ", unit: lux)") { state["light"] = value }
            if let value = line.between("=== Has proximity sensor (near: ", ")") { state["near"] = value }
            if let value = line.between("    Accelerometer orientation changed: ", "") { state["orientation"] = value }
            if let value = line.between("    Light changed: ", " (lux)") { state["light"] = value }
            if let value = line.between("    Proximity value changed: ", "") { state["near"] = value }
        }
        return state
    }

    /// Plays the scenario on `test-accel.umockdev` with `command` (under the testbed, its
    /// system bus a private one) watched by `monitor-sensor`.
    static func playScenario(_ command: [String]) async throws -> ScenarioRun {
        let testbed = Testbed()
        try testbed.add(try Emulation.fixtureText("test-accel.umockdev"))
        let bus = try await SystemBus()
        let polkit = try await bus.startPolkit(allowing: [claimAction])
        defer { polkit?.terminate() }
        let daemon = try RunningProcess(command, environment: bus.environment(testbed.environment))
        defer { daemon.terminate() }
        guard try await bus.waitForOwner("net.hadess.SensorProxy") else {
            throw TestFailure("\(command[0]) did not own net.hadess.SensorProxy: \(daemon.stderr.suffix(2000))")
        }
        let monitor = try MonitorSensor(bus: bus)
        for has in ["=== Has accelerometer", "=== No ambient light sensor", "=== No proximity sensor"] {
            guard await monitor.wait(for: has, timeout: 15) != nil else {
                throw TestFailure("monitor-sensor never printed \(has): \(monitor.lines.map(\.text)); \(command[0]): \(daemon.stderr.suffix(2000))")
            }
        }
        // iio-sensor-proxy before 3.6 answers a claim before its first reading and sends the
        // values as changes within one poll (700 ms); let them come.
        try await Task.sleep(for: .milliseconds(1600))
        let start = monitor.lines.count
        let initial = state(monitor.lines.map(\.text))
        var latencies: [Double] = []
        for step in scenario {
            let before = monitor.lines.count
            for change in step.changes { testbed.setAttribute(change.device, change.attribute, change.value + "\n") }
            let written = Date().timeIntervalSince1970
            guard let arrived = await monitor.wait(for: step.line, from: before, timeout: 10) else {
                throw TestFailure("\(command[0]): no '\(step.line)' after the step; lines: \(monitor.lines.map(\.text)); log: \(daemon.stderr.suffix(2000))")
            }
            latencies.append(arrived - written)
            // Anything else the step causes arrives within a poll of iio-sensor-proxy's.
            try await Task.sleep(for: .milliseconds(900))
        }
        return ScenarioRun(initial: initial, lines: monitor.lines[start...].map(\.text), latencies: latencies)
    }

    static func motiondSensorProxy(_ directory: URL, _ extra: [String] = []) -> [String] {
        [Emulation.motiond, "--source", "local:", "--sensor-proxy", "--no-config", "--socket",
         directory.appendingPathComponent("motiond.sock").path, "--log-level", "debug"] + extra
    }

    @Test("monitor-sensor shows the same lines against motiond as against iio-sensor-proxy for the same device movements; latency side by side",
          .enabled(if: hasDBusTools && iioSensorProxy != nil, "needs dbus-daemon, busctl, gdbus and iio-sensor-proxy (scripts/install-deps.sh test)"))
    func sameLinesAsIIOSensorProxy() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ours = try await Self.playScenario(Self.motiondSensorProxy(directory))
        let theirs = try await Self.playScenario([try #require(Self.iioSensorProxy), "-v"])

        #expect(ours.initial == ["orientation": "normal"], "\(ours.initial)")
        #expect(ours.initial == theirs.initial)
        #expect(ours.lines == theirs.lines, "motiond: \(ours.lines)\niio-sensor-proxy: \(theirs.lines)")
        #expect(ours.lines == Self.scenario.map(\.line), "exactly one line per step: no repeats, no storm")

        func summary(_ latencies: [Double]) -> String {
            let sorted = latencies.sorted()
            return "median \(Int(sorted[sorted.count / 2] * 1000)) ms, max \(Int(sorted.last! * 1000)) ms"
        }
        print("D-Bus step latency (device change → monitor-sensor line), \(Self.scenario.count) steps: "
              + "motiond \(summary(ours.latencies)); iio-sensor-proxy \(summary(theirs.latencies))")
    }
}

private extension String {
    /// The text between `prefix` (which the string must start with) and `suffix` (which it
    /// must end with; "" for the rest of the line).
    func between(_ prefix: String, _ suffix: String) -> String? {
        guard hasPrefix(prefix), hasSuffix(suffix), count >= prefix.count + suffix.count else { return nil }
        return String(dropFirst(prefix.count).dropLast(suffix.count))
    }
}
