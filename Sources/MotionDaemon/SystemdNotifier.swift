import CSystemd
import Dispatch
import MotionSync
import Synchronization

/// Tells systemd how the service is doing (sd_notify): `READY=1` once sensors are discovered
/// and the socket listens, `STATUS=` lines for `systemctl status`, `WATCHDOG=1` pings, and
/// `RELOADING=1`/`STOPPING=1`. Without `NOTIFY_SOCKET` (not started by systemd as
/// `Type=notify`) every call does nothing.
///
/// sd_notify is a blocking send, so pings and status lines, which come from the pipeline
/// queue, are handed to a queue of their own and coalesced: the pipeline never waits on the
/// notification socket, and a stalled notification socket costs one pending ping and one
/// pending status, not a growing backlog.
final class SystemdNotifier: Sendable {
    /// The watchdog period systemd expects pings within (`WatchdogSec=`), seconds; nil when
    /// the watchdog is off.
    let watchdogInterval: Double?
    private let queue = DispatchQueue(label: "motiond.notify")
    private let pingPending = Atomic<Bool>(false)
    private let pendingStatus = Lock<String?>(nil)

    init() {
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 && microseconds > 0 ? Double(microseconds) / 1e6 : nil
    }

    /// Ready, at start and again after a reload.
    func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    /// A new status line (from any queue; sent off it).
    func status(_ text: String) {
        let first = pendingStatus.withLock { pending in
            defer { pending = text }
            return pending == nil
        }
        guard first else { return }
        queue.async { [self] in
            if let text = pendingStatus.withLock({ pending in defer { pending = nil }; return pending }) {
                send("STATUS=\(text)")
            }
        }
    }

    /// Called from the pipeline queue itself: if the pipeline stalls, the pings stop and
    /// systemd restarts the service.
    func watchdog() {
        guard !pingPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            pingPending.store(false, ordering: .releasing)
            send("WATCHDOG=1")
        }
    }

    /// Pings the watchdog from `queue` every half watchdog period, so a stalled `queue` stops
    /// the pings and gets the service restarted. Returns the timer (cancel it to stop), nil when
    /// systemd wants no watchdog.
    func startWatchdog(on queue: DispatchQueue) -> DispatchSourceTimer? {
        guard let interval = watchdogInterval else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval / 2, leeway: .milliseconds(Int(interval * 50)))
        timer.setEventHandler { [self] in watchdog() }
        timer.resume()
        return timer
    }

    func reloading() {
        send("RELOADING=1")
    }

    func stopping(_ why: String) {
        send("STOPPING=1\nSTATUS=stopping: \(why)")
    }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}
