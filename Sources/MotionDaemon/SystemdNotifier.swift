import CSystemd
import Dispatch
import MotionSync
import Synchronization

/// Tells systemd how the service is doing (sd_notify): `READY=1` once sensors are discovered
/// and the socket listens, `STATUS=` lines for `systemctl status`, `WATCHDOG=1` pings, and
/// `RELOADING=1`/`STOPPING=1`. Without `NOTIFY_SOCKET` (not started by systemd as
/// `Type=notify`) every call does nothing.
///
/// sd_notify is a blocking send (a notification socket nobody reads blocks it once its queue
/// holds ten datagrams), so every notification is handed to a queue of its own, in order, and
/// pings and status lines are coalesced: no caller waits on the notification socket (only the
/// last, `STOPPING=1`, is waited for, a second at most), and a stalled notification socket costs
/// one pending ping and one pending status, not a growing backlog.
final class SystemdNotifier: Sendable {
    /// The watchdog period systemd expects pings within (`WatchdogSec=`), seconds; nil when
    /// the watchdog is off.
    let watchdogInterval: Double?
    private let queue = DispatchQueue(label: "motiond.notify")
    private let pingPending = Atomic<Bool>(false)
    private let pendingStatus = Lock<String?>(nil)
    /// `STOPPING=1` was queued: pings and status lines queued after it are not sent.
    private let stopped = Atomic<Bool>(false)

    init() {
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 && microseconds > 0 ? Double(microseconds) / 1e6 : nil
    }

    /// Ready, at start and again after a reload.
    func ready(status: String) {
        queue.async { [self] in send("READY=1\nSTATUS=\(status)") }
    }

    /// A new status line (from any queue; sent off it).
    func status(_ text: String) {
        let first = pendingStatus.withLock { pending in
            defer { pending = text }
            return pending == nil
        }
        guard first else { return }
        queue.async { [self] in
            if let text = pendingStatus.withLock({ pending in defer { pending = nil }; return pending }), !stopped.load(ordering: .acquiring) {
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
            if !stopped.load(ordering: .acquiring) { send("WATCHDOG=1") }
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
        queue.async { [self] in send("RELOADING=1") }
    }

    /// The last notification: after whatever is queued before it, waiting for it at most
    /// `timeout` seconds. A notification socket nobody reads (its queue full) blocks sd_notify,
    /// and must not keep the daemon from exiting.
    func stopping(_ why: String, timeout: Double = 1) {
        stopped.store(true, ordering: .releasing)
        let sent = DispatchSemaphore(value: 0)
        queue.async { [self] in
            send("STOPPING=1\nSTATUS=stopping: \(why)")
            sent.signal()
        }
        _ = sent.wait(timeout: .now() + timeout)
    }

    private func send(_ state: String) {
        _ = sd_notify(0, state)
    }
}
