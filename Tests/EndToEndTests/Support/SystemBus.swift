import Foundation
import Glibc
@testable import TestSupport

/// A private D-Bus daemon of the system type for one test: its own socket in a temporary
/// directory, the policy of Debian's system bus (deny by default: owning a name and calling a
/// method need an allow rule), with motiond's own policy file (`dbus/net.hadess.SensorProxy.conf`)
/// and the rules the test's polkit stand-in needs. Children get it as their system bus through
/// ``environment``.
final class SystemBus: Sendable {
    let directory: URL
    let address: String
    private let daemon: RunningProcess

    /// `limits`: dbus-daemon `<limit>`s to set (name: value), e.g. a low
    /// `max_replies_per_connection`.
    init(limits: [String: Int] = [:]) async throws {
        directory = try Emulation.temporaryDirectory()
        let socket = directory.appendingPathComponent("system_bus_socket").path
        address = "unix:path=\(socket)"
        let policy = Emulation.packageRoot.appendingPathComponent("dbus/net.hadess.SensorProxy.conf").path
        let configuration = directory.appendingPathComponent("bus.conf").path
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
          </policy>
          <!-- The polkit stand-in (python-dbusmock's polkitd template), as polkit's own policy. -->
          <policy user="root">
            <allow own="org.freedesktop.PolicyKit1"/>
            <allow send_destination="org.freedesktop.PolicyKit1"/>
          </policy>
          <policy context="default">
            <allow send_destination="org.freedesktop.PolicyKit1"/>
          </policy>
          <include>\(policy)</include>
        \(limits.map { "  <limit name=\"\($0.key)\">\($0.value)</limit>" }.joined(separator: "\n"))
        </busconfig>
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        daemon = try RunningProcess(["dbus-daemon", "--config-file=\(configuration)", "--nofork", "--print-address=1"])
        let started = await daemon.wait(timeout: 10) { $0.stdout.contains("unix:") }
        guard started else { throw TestFailure("dbus-daemon did not start: \(daemon.stderr)") }
    }

    deinit {
        daemon.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// An environment whose system bus is this one (and no session bus).
    func environment(_ base: [String: String] = RunningProcess.plainEnvironment) -> [String: String] {
        var env = base
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        return env
    }

    /// `busctl --address=… ARGS` (busctl speaks to a bus by address).
    func busctl(_ arguments: [String], timeout: Double = 15) async throws -> ProcessOutput {
        try await Emulation.run(["busctl", "--address=\(address)"] + arguments, environment: environment(), timeout: timeout)
    }

    /// Whether `name` has an owner on this bus.
    func hasOwner(_ name: String) async throws -> Bool {
        let result = try await busctl(["call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "b true"
    }

    /// Waits up to `timeout` seconds for `name` to have an owner.
    func waitForOwner(_ name: String, timeout: Double = 15) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await hasOwner(name) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await hasOwner(name)
    }

    /// python-dbusmock's polkit stand-in on this bus (Debian's python3, which has the module),
    /// allowing exactly `allowed` actions; nil when python3-dbusmock is not installed.
    func startPolkit(allowing allowed: [String]) async throws -> RunningProcess? {
        let python = "/usr/bin/python3"
        let probe = try await Emulation.run([python, "-c", "import dbusmock"])
        guard probe.status == 0 else { return nil }
        let polkit = try RunningProcess([python, "-m", "dbusmock", "--system", "--template", "polkitd"], environment: environment())
        guard try await waitForOwner("org.freedesktop.PolicyKit1") else {
            throw TestFailure("the polkit stand-in did not start: \(polkit.stderr)")
        }
        let list = "[" + allowed.map { "'\($0)'" }.joined(separator: ", ") + "]"
        let set = try await Emulation.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.PolicyKit1",
                                           "--object-path", "/org/freedesktop/PolicyKit1/Authority",
                                           "--method", "org.freedesktop.DBus.Mock.SetAllowed", list], environment: environment())
        guard set.status == 0 else { throw TestFailure("SetAllowed failed: \(set.stderr)") }
        return polkit
    }
}

/// Debian's `monitor-sensor` (iio-sensor-proxy's client) on a bus, its lines time-stamped on
/// arrival (CLOCK_REALTIME seconds) by a line-buffered reader, so step latencies can be read
/// off them. It runs in the C locale: its `%lf` light levels read `100.000000` whatever the
/// daemon's locale.
final class MonitorSensor: Sendable {
    private let process: RunningProcess

    /// `program`: another monitor-sensor to run (motiond's, MonitorSensorTests), with its options.
    init(bus: SystemBus, program: String = "monitor-sensor") throws {
        let stamp = #"import sys, time\nfor line in sys.stdin: print(f"{time.time():.6f} {line}", end="", flush=True)"#
        process = try RunningProcess(["sh", "-c", "stdbuf -oL \(program) | /usr/bin/python3 -u -c \"$(printf '\(stamp)')\""],
                                     environment: bus.environment().merging(["LC_ALL": "C"]) { $1 })
    }

    deinit { process.terminate() }

    /// Every line so far: arrival time and text (without the time stamp and newline).
    var lines: [(time: Double, text: String)] {
        process.stdout.split(separator: "\n").compactMap { line in
            guard let space = line.firstIndex(of: " "), let time = Double(line[..<space]) else { return nil }
            return (time, String(line[line.index(after: space)...]))
        }
    }

    /// Waits up to `timeout` s for a line at index ≥ `from` containing `text`; its time.
    func wait(for text: String, from: Int = 0, timeout: Double = 10) async -> Double? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let all = lines
            if from < all.count, let hit = all[from...].first(where: { $0.text.contains(text) }) { return hit.time }
            try? await Task.sleep(for: .milliseconds(10))
        } while Date() < deadline
        return nil
    }

    /// Kills it without a goodbye (SIGKILL to its process group): it cannot release its claims.
    func crash() { kill(-process.pid, SIGKILL) }

    var isRunning: Bool { process.isRunning }
    var stderr: String { process.stderr }
}
