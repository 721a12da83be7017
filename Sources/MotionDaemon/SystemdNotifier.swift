import CSystemd

/// Tells systemd how the service is doing (sd_notify): `READY=1` once sensors are discovered
/// and the socket listens, `STATUS=` lines for `systemctl status`, `WATCHDOG=1` pings, and
/// `RELOADING=1`/`STOPPING=1`. Without `NOTIFY_SOCKET` (not started by systemd as
/// `Type=notify`) every call does nothing.
struct SystemdNotifier: Sendable {
    /// The watchdog period systemd expects pings within (`WatchdogSec=`), seconds; nil when
    /// the watchdog is off.
    let watchdogInterval: Double?

    init() {
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 && microseconds > 0 ? Double(microseconds) / 1e6 : nil
    }

    func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    func status(_ text: String) {
        send("STATUS=\(text)")
    }

    /// Sent from the pipeline queue itself: if the pipeline stalls, the pings stop and systemd
    /// restarts the service.
    func watchdog() {
        send("WATCHDOG=1")
    }

    func reloading() {
        send("RELOADING=1")
    }

    func reloaded(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    func stopping(_ why: String) {
        send("STOPPING=1\nSTATUS=stopping: \(why)")
    }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}
