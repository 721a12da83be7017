import Glibc
import MotionDBus
import MotionIIO

/// Whether iio-sensor-proxy runs, told by the system bus: it always owns
/// `net.hadess.SensorProxy` while it runs (and exits when it cannot), so a name nobody owns, or
/// that motiond's own D-Bus face owns, says it has gone. Asked by discovery when a buffer is
/// found enabled with nobody holding it (``SensorProxyPresence``), which is rare: a bus
/// connection each time is fine.
public enum SensorProxyPeer {
    public static func presence() -> SensorProxyPresence {
        let name = SensorProxyObjects.busName
        do {
            guard let owner = try SystemBus.owner(of: name) else { return .gone("nobody owns \(name) on the system bus") }
            if owner == getpid() { return .gone("motiond itself owns \(name)") }
            return .running("process \(owner) owns \(name) on the system bus")
        } catch {
            return .unknown("the system bus cannot say who owns \(name): \(error)")
        }
    }
}
