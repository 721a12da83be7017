import Foundation
@testable import TestSupport
import Testing

/// The D-Bus face's compass at the rest rate, end to end on an emulated HID sensor hub
/// (`hid-laptop.umockdev`: accelerometer, gyroscope and magnetometer, all polled), on a private
/// system bus (a live umockdev testbed, so these belong to the serialized hot-plug suite).
extension HotplugTests {
    /// motiond serving the D-Bus face on the hub, a socket client asking for its status, and a
    /// claimant of the compass that reads the heading only when asked (at SIGUSR1): between,
    /// the face has nothing to answer. (monitor-sensor claims the compass only as the geoclue
    /// user.)
    struct CompassAtRest {
        static let hub = "/sys/devices/pci0000:00/0000:00:13.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001"
        static let gyroscope = hub + "/HID-SENSOR-200076.1.auto/iio:device1"
        static let magnetometer = hub + "/HID-SENSOR-200083.2.auto/iio:device2"
        static let claimant = """
        import dbus, os, signal
        bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
        compass = bus.get_object("net.hadess.SensorProxy", "/net/hadess/SensorProxy/Compass")
        compass.ClaimCompass(dbus_interface="net.hadess.SensorProxy.Compass")
        properties = dbus.Interface(compass, "org.freedesktop.DBus.Properties")
        def read(*_):
            print(float(properties.Get("net.hadess.SensorProxy.Compass", "CompassHeading")), flush=True)
        signal.signal(signal.SIGUSR1, read)
        read()
        while True:
            signal.pause()
        """

        let proxied: ProxiedDaemon
        let asker: SocketClient
        let reader: RunningProcess
        private var id = 0

        init() async throws {
            proxied = try await ProxiedDaemon(fixture: "hid-laptop.umockdev")
            asker = try await proxied.daemon.connect()
            reader = try RunningProcess(["/usr/bin/python3", "-u", "-c", Self.claimant], environment: proxied.bus.environment())
        }

        func stop() {
            reader.terminate()
            proxied.stop()
        }

        /// Each motion sensor's rest interval (nil: read at its full rate), once all three are read.
        mutating func restIntervals() async throws -> [Double?]? {
            id += 1
            try await asker.send(.status(id: id))
            let status = try #require(try await asker.reply(id)?["status"] as? [String: Any])
            let sensors = try #require(status["sensors"] as? [String: Any])
            let read = ["accelerometer", "gyroscope", "magnetometer"].compactMap { sensors[$0] as? [String: Any] }.filter { $0["period"] != nil }
            return read.count == 3 ? read.map { $0["restInterval"] as? Double } : nil
        }

        /// Asks for the status until the rest intervals satisfy `condition`, for up to `timeout` s.
        mutating func waitFor(_ timeout: Double, _ condition: ([Double?]) -> Bool) async throws -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let intervals = try await restIntervals(), condition(intervals) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// The heading the claimant reads now (nil: it read none within 10 s).
        func heading() async throws -> Double? {
            var asked = false, before = 1
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let lines = reader.stdout.split(separator: "\n")
                // Its first line (after the claim) says its handler is in place.
                if !asked && !lines.isEmpty {
                    before = lines.count
                    kill(reader.pid, SIGUSR1)
                    asked = true
                } else if asked && lines.count > before {
                    return Double(lines[lines.count - 1])
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    @Test("a compass claim at rest: all three sensors are read every rest interval; a turn flat on a table, which only the gyroscope sees, brings the full rate back and the heading follows; still again, rest again",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func compassAtRest() async throws {
        var rest = try await CompassAtRest()
        defer { rest.stop() }
        #expect(try await rest.waitFor(10) { $0 == [0.35, 0.35, 0.35] }, "still, only the D-Bus face's claim: all three rest; \(rest.reader.stderr)")
        let still = try #require(try await rest.heading(), "\(rest.reader.stderr)")
        #expect((0..<360).contains(still))

        // Turned about the vertical (the device's y axis, standing portrait) at 0.5 rad/s: the
        // accelerometer reads the same, the gyroscope the turn; then the field, turned 90° the
        // same way, and the gyroscope still again.
        rest.proxied.testbed.setAttribute(CompassAtRest.gyroscope, "in_anglvel_y_raw", "2845\n")
        #expect(try await rest.waitFor(5) { $0 == [nil, nil, nil] }, "the gyroscope's turn ends the rest")
        rest.proxied.testbed.setAttribute(CompassAtRest.magnetometer, "in_magn_x_raw", "430\n")
        rest.proxied.testbed.setAttribute(CompassAtRest.magnetometer, "in_magn_z_raw", "200\n")
        try await Task.sleep(for: .seconds(1))
        rest.proxied.testbed.setAttribute(CompassAtRest.gyroscope, "in_anglvel_y_raw", "-20\n")
        #expect(try await rest.waitFor(10) { $0 == [0.35, 0.35, 0.35] }, "still again: rest again")
        let turned = try #require(try await rest.heading(), "\(rest.reader.stderr)")
        // The gyroscope turned it by ~30° in the second or so the turn lasted; the field's 90°
        // is taken in more slowly.
        let change = abs(remainder(turned - still, 360))
        #expect(change > 20, "the heading followed the turn: \(still)° → \(turned)°")
        #expect(!rest.proxied.daemon.process.stderr.contains("the motion samples stopped"), "a rest is not an outage")
    }

    @Test("a compass claim at rest: the accelerometer (no motion events to sleep on), the gyroscope and the magnetometer are read on the one shared thread of slow reads, together (one wake-up per rest interval for the three); no other thread wakes (the heading holds still, so the D-Bus face has no news to send)",
          .enabled(if: hasDBusTools, "needs dbus-daemon, busctl, gdbus and monitor-sensor (scripts/install-deps.sh test)"))
    func compassRestIsQuiet() async throws {
        var rest = try await CompassAtRest()
        defer { rest.stop() }
        #expect(try await rest.waitFor(10) { $0 == [0.35, 0.35, 0.35] }, "\(rest.reader.stderr)")
        #expect(try await rest.heading() != nil, "\(rest.reader.stderr)")
        // Two seconds for the code pages' release, then nobody asks anything in the window.
        try await Task.sleep(for: .seconds(2))
        let pid = rest.proxied.daemon.process.pid
        let before = ThreadSwitches.of(pid)
        try await Task.sleep(for: .seconds(5))
        let after = ThreadSwitches.of(pid)
        let readers: (String) -> Bool = { $0 == "iio.slow" }
        let woke = ThreadSwitches.wokeMoreThanOnce(before, after, except: readers)
        #expect(woke.isEmpty, "threads that woke in 5 s at rest: \(woke)")
        #expect(!after.values.contains { $0.name.hasPrefix("poll.") }, "no reader thread of its own at rest: \(after.values.map(\.name))")
        let shared = after.filter { $0.value.name == "iio.slow" }.map { $0.value.count - (before[$0.key]?.count ?? 0) }
        // 5 s at 0.35 s is 14 rest intervals: the three devices on wake-ups of their own would
        // make about 42.
        #expect(shared.count == 1 && shared[0] <= 20, "the shared thread's wake-ups in 5 s: \(shared)")
    }
}
