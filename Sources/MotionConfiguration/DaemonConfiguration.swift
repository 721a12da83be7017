import FoundationEssentials
import Glibc
import MotionCore
import MotionIIO
import MotionProtocol

/// Every setting of `/etc/motiond/motiond.toml`, with the default each one has when the file
/// leaves it out (or when there is no file). ``ConfigurationFile`` reads and validates the file;
/// a value of this type is always valid. `etc/motiond/motiond.toml` in the source tree is the
/// documented default file.
///
/// Command-line options are for one run; this is the installed daemon's standing setup (R73:
/// device selection, mount matrices, gesture thresholds, location or declination, the
/// calibration store and the socket's path and permissions). Sample rates are the clients':
/// each chooses its own, no faster than ``pollPeriod`` and what ``Access`` allows it.
public struct DaemonConfiguration: Sendable, Hashable {
    /// Where samples come from (`source`): `local:`, `ip:HOST[:PORT]`, `sim:` or
    /// `replay:FILE.csv`. Default `local:`, this machine's IIO devices.
    public var source = SourceURI.local
    /// The sensors the daemon may use (`sensors`). Default: all three.
    public var sensors = Set(SensorKind.allCases)
    /// `poll-period`: the shortest period, seconds, at which a sensor is read (polled, or
    /// sampled into the buffer), within ``Wire/hardwarePeriods``. Subscriptions asking for
    /// faster values are granted this interval. Default 0.01 (100 Hz); a longer one saves power
    /// where nobody needs fast motion.
    public var pollPeriod = Wire.hardwarePeriods.lowerBound
    /// `rest-interval`: seconds between readings of an accelerometer that has lain still for a
    /// second, while every subscription that reads it tolerates that (orientation, shake:
    /// `SensorDemand.toleratesRestRate(_:)` in MotionDaemon) — the rest rate that keeps a laptop on a desk
    /// out of the CPU's way. The first reading that moves brings the full rate back. 0 turns
    /// it off; otherwise within ``restIntervals``. Default 0.35 (docs/SENSORS.md: how it
    /// keeps a portrait↔landscape step from rest under 450 ms).
    public var restInterval = 0.35
    /// The rest intervals allowed besides 0, seconds.
    public static let restIntervals = 0.05...5.0
    /// Mount matrices that win over udev and sysfs (`[[mount-matrix]]`), in file order.
    /// Default: none.
    public var mountMatrix: [MountMatrixOverride] = []
    /// Where true north comes from: `declination` (degrees east) or `[location]` (latitude,
    /// longitude, altitude), never both. Default nil: true north is unavailable.
    public var trueNorth: DeclinationSource?
    /// How the motion engine treats the magnetometer and the axis self-check (`[engine]`).
    public var engine = Engine()
    /// The event detectors' parameters (`[detectors]`): the file changes only the keys it
    /// names. Default: the shipped detectors (docs/EVENTS.md).
    public var detectors = DetectorConfiguration()
    /// The clients' Unix socket (`[socket]`).
    public var socket = Socket()
    /// Who may receive what (`[access]`).
    public var access = Access()
    /// Where the learned engine state is kept (`[state]`).
    public var state = State()
    /// What motiond offers on the system bus (`[dbus]`).
    public var dbus = DBus()
    /// What a convertible's hinge drives (`[convertible]`).
    public var convertible = Convertible()
    /// How IIO devices are read (`[iio]`).
    public var iio = IIO()
    /// Keys the file names that an earlier release read and this one ignores, each as a line
    /// for the log naming the file, line, key and why (``ConfigurationFile/retiredDetectorKeys``).
    public var ignoredKeys: [ConfigurationError] = []

    /// The defaults.
    public init() {}

    /// Motion-engine settings (`[engine]`).
    public struct Engine: Sendable, Hashable {
        /// `magnetometer-calibration`: `online` (hard and soft iron learned from motion, the
        /// default) or `trusted` (readings already calibrated, e.g. by a sensor hub).
        public var magnetometerCalibration = MotionEngine.MagnetometerCalibrationMode.online
        /// `apply-axis-correction`: apply the axis self-check's gyroscope correction when it
        /// finds one. Default false: it is only reported.
        public var applyAxisCorrection = false

        public init() {}
    }

    /// The socket clients connect to (`[socket]`). Under systemd socket activation,
    /// motiond.socket creates it and these apply only when the daemon creates it itself.
    public struct Socket: Sendable, Hashable {
        /// `path`. Default `/run/motiond/motiond.sock`.
        public var path = Wire.defaultSocketPath
        /// `group`: the group the socket file is given. Default nil: the daemon's own.
        public var group: SystemGroup?
        /// `mode`: the socket file's permission bits, written in the file as an octal string
        /// (`"0660"`). Default `0o666`: anyone may connect, and ``Access`` decides what each
        /// connection may receive.
        public var mode: mode_t = 0o666

        public init() {}
    }

    /// The access policy (`[access]`), decided per connection from the peer's credentials
    /// (MotionDaemon's `AccessPolicy`).
    public struct Access: Sendable, Hashable {
        /// What clients that are neither root nor in ``group`` receive outside the active
        /// session.
        public enum Others: String, Sendable, Hashable, CaseIterable {
            /// The orientation and shake streams only: enough to rotate a screen, without the
            /// raw motion.
            case coarse
            /// Nothing: the connection is refused.
            case nothing = "none"
        }

        /// `group`: its members, root and motiond's own user receive every stream at any rate.
        /// Default nil: only root and motiond's own user do.
        public var group: SystemGroup?
        /// `others`: what everybody else receives. Default ``Others/coarse``.
        public var others = Others.coarse
        /// `active-session-rate`: the highest rate, Hz, at which a client outside ``group``
        /// that runs in the active local session (the person at the device) receives every
        /// stream; 0 gives it only what ``others`` allows. Default 100, the daemon's fastest
        /// rate (``Wire/minimumInterval``): the person at the device is not limited.
        public var activeSessionRate = 1 / Wire.minimumInterval

        public init() {}
    }

    /// The persisted engine state (`[state]`): gyroscope bias, magnetometer calibration and an
    /// applied axis correction survive restarts.
    public struct State: Sendable, Hashable {
        /// `path`: the JSON file. Default `/var/lib/motiond/engine.json`.
        public var path = "/var/lib/motiond/engine.json"
        /// `save-interval`: seconds between saves of a changing state (it is saved at exit
        /// too). Default 30.
        public var saveInterval = 30.0

        public init() {}
    }

    /// The D-Bus face (`[dbus]`).
    public struct DBus: Sendable, Hashable {
        /// `sensor-proxy`: own `net.hadess.SensorProxy` on the system bus and serve
        /// iio-sensor-proxy's API (orientation, tilt, light, proximity, compass) to GNOME, KDE
        /// and the other desktops that speak it (docs/DBUS.md). Default false: a machine that
        /// runs iio-sensor-proxy keeps it; the README's "Replacing iio-sensor-proxy" makes the
        /// switch. While another process owns the name, motiond waits for it.
        public var sensorProxy = false

        public init() {}
    }

    /// How IIO devices are read (`[iio]`).
    public struct IIO: Sendable, Hashable {
        /// `software-trigger`: whether a device that can buffer but has no trigger of its own
        /// (a board's IMU without its interrupt line) gets an `hrtimer` software trigger.
        /// Default `auto`.
        public var softwareTrigger = SoftwareTriggerMode.auto

        public init() {}
    }

    /// A convertible's tablet-mode switch for the desktop (`[convertible]`).
    public struct Convertible: Sendable, Hashable {
        /// When motiond offers the switch (`tablet-mode-switch`).
        public enum TabletModeSwitch: String, Sendable, Hashable, CaseIterable {
            /// Only on a machine with a base accelerometer and no tablet-mode switch of its own.
            case auto
            /// On any machine with a base accelerometer, beside a switch of its own.
            case on
            case off
        }

        /// `tablet-mode-switch`: default `auto`.
        public var tabletModeSwitch = TabletModeSwitch.auto
        /// `tablet-mode-postures`: the postures in which the switch says tablet mode. Default
        /// tablet, tent and stand — every posture whose keyboard faces away or lies on the
        /// table (as ChromeOS beyond 200°, and `thinkpad_acpi`'s and `lenovo-ymc`'s modes).
        public var tabletModePostures: Set<Posture> = Set(Posture.keyboardAway)

        public init() {}
    }

    /// The motion-engine configuration these settings describe, with the declination true
    /// north needs worked out for `date` (the World Magnetic Model changes with time). Throws
    /// when a location's date is outside the model; ranges were checked when the file was read.
    public func engineConfiguration(on date: Date = Date()) throws(DeclinationSource.Problem) -> MotionEngine.Configuration {
        var configuration = MotionEngine.Configuration()
        configuration.magnetometerCalibration = engine.magnetometerCalibration
        configuration.applyAxisCorrection = engine.applyAxisCorrection
        configuration.declination = try trueNorth?.declination(on: date)
        return configuration
    }
}
