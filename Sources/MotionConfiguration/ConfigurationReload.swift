/// What a configuration reload (SIGHUP, `systemctl reload motiond`) does with a new file:
/// the settings a running daemon can change take the new values; the others (which sensors it
/// opens and how, where the socket and the state file are) keep the running ones, and the log
/// says they wait for a restart.
public struct ConfigurationReload: Sendable, Hashable {
    /// The configuration to run with: the new file's reloadable settings, the running rest.
    public var applied: DaemonConfiguration
    /// The file's names of the reloadable settings that changed.
    public var changed: [String]
    /// The file's names of the settings that changed but apply only after a restart.
    public var waitingForRestart: [String]

    /// Reloading `new` into a daemon running with `running`.
    public init(running: DaemonConfiguration, new: DaemonConfiguration) {
        var applied = running
        var changed: [String] = []
        func take<Value: Equatable>(_ name: String, _ key: WritableKeyPath<DaemonConfiguration, Value>) {
            guard new[keyPath: key] != running[keyPath: key] else { return }
            applied[keyPath: key] = new[keyPath: key]
            changed.append(name)
        }
        take("declination/location", \.trueNorth)
        take("engine", \.engine)
        take("detectors", \.detectors)
        take("rest-interval", \.restInterval)
        take("socket.mode", \.socket.mode)
        take("socket.group", \.socket.group)
        take("access", \.access)
        take("dbus.sensor-proxy", \.dbus.sensorProxy)
        take("convertible", \.convertible)

        var waiting: [String] = []
        func wait<Value: Equatable>(_ name: String, _ key: KeyPath<DaemonConfiguration, Value>) {
            if new[keyPath: key] != running[keyPath: key] { waiting.append(name) }
        }
        wait("source", \.source)
        wait("sensors", \.sensors)
        wait("poll-period", \.pollPeriod)
        wait("mount-matrix", \.mountMatrix)
        wait("socket.path", \.socket.path)
        wait("state", \.state)
        wait("iio", \.iio)
        self.applied = applied
        self.changed = changed
        waitingForRestart = waiting
    }
}
