import Testing
import MotionCore
import MotionIIO
@testable import MotionConfiguration

@Suite("Configuration reload")
struct ConfigurationReloadTests {
    @Test("reloadable settings take the new values; restart-only ones keep the running values and are named")
    func classification() throws {
        let running = DaemonConfiguration()
        var new = running
        new.trueNorth = .declination(3)
        new.engine.magnetometerCalibration = .trusted
        new.detectors.shake.threshold = 2
        new.restInterval = 0
        new.socket.mode = 0o660
        new.access.others = .nothing
        new.dbus.sensorProxy = true
        new.convertible.tabletModeSwitch = .off
        new.source = .simulated
        new.sensors = [.accelerometer]
        new.pollPeriod = 0.05
        new.mountMatrix = [MountMatrixOverride(device: nil, kind: .accelerometer, matrix: try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, 1"))]
        new.socket.path = "/run/elsewhere.sock"
        new.state.path = "/var/lib/elsewhere.json"
        new.iio.softwareTrigger = .off
        let reload = ConfigurationReload(running: running, new: new)
        #expect(reload.changed == ["declination/location", "engine", "detectors", "rest-interval", "socket.mode", "access", "dbus.sensor-proxy", "convertible"])
        #expect(reload.waitingForRestart == ["source", "sensors", "poll-period", "mount-matrix", "socket.path", "state", "iio"])

        var expected = new
        expected.source = running.source
        expected.sensors = running.sensors
        expected.pollPeriod = running.pollPeriod
        expected.mountMatrix = running.mountMatrix
        expected.socket.path = running.socket.path
        expected.state = running.state
        expected.iio = running.iio
        #expect(reload.applied == expected)

        let same = ConfigurationReload(running: running, new: running)
        #expect(same.changed.isEmpty && same.waitingForRestart.isEmpty && same.applied == running)
    }

    @Test("every setting is either reloadable or restart-only (a new setting must be classified)")
    func everySettingClassified() {
        // ignoredKeys is no setting: the warnings of a read, logged at start and on a reload.
        let settings = Set(Mirror(reflecting: DaemonConfiguration()).children.compactMap(\.label)).subtracting(["ignoredKeys"])
        let classified: Set<String> = ["trueNorth", "engine", "detectors", "restInterval", "socket", "access", "source", "sensors", "pollPeriod", "mountMatrix", "state", "dbus", "convertible", "iio"]
        #expect(settings == classified)
        // [socket] is split: path waits for a restart, group and mode do not.
        #expect(Set(Mirror(reflecting: DaemonConfiguration.Socket()).children.compactMap(\.label)) == ["path", "group", "mode"])
    }
}
