import MotionConfiguration
import MotionCore
import MotionDaemon
import MotionIIO

/// The settings given on motiond's command line that the configuration file also has: given
/// ones win over the file's (for this run, and again on every reload); the rest come from the
/// file.
struct CommandLineOverrides: Sendable {
    var source: SourceURI?
    var sensors: Set<SensorKind>?
    /// Tried before the file's (the first matching override wins).
    var mountMatrix: [MountMatrixOverride] = []
    var magnetometerCalibration: MotionEngine.MagnetometerCalibrationMode?
    /// `--apply-axis-correction` (a flag: it can only switch the correction on).
    var applyAxisCorrection = false
    var trueNorth: DeclinationSource?
    var socketPath: String?
    var statePath: String?
    var stateSaveInterval: Double?
    /// `--sensor-proxy` (a flag: it can only switch the D-Bus face on).
    var sensorProxy = false

    func apply(to configuration: inout DaemonConfiguration) {
        if let source { configuration.source = source }
        if let sensors { configuration.sensors = sensors }
        configuration.mountMatrix = mountMatrix + configuration.mountMatrix
        if let magnetometerCalibration { configuration.engine.magnetometerCalibration = magnetometerCalibration }
        if applyAxisCorrection { configuration.engine.applyAxisCorrection = true }
        if let trueNorth { configuration.trueNorth = trueNorth }
        if let socketPath { configuration.socket.path = socketPath }
        if let statePath { configuration.state.path = statePath }
        if let stateSaveInterval { configuration.state.saveInterval = stateSaveInterval }
        if sensorProxy { configuration.dbus.sensorProxy = true }
    }
}
