import Dispatch

/// Looks every few seconds for the hang-up of half-closed clients that still subscribe: a
/// client that then closes completely is noticed even when nothing is pushed to it (which
/// would fail and tell). Runs only while such clients exist. Confined to the server's queue.
final class HangUpWatch {
    /// Seconds between looks.
    static let interval = 2.0
    private var timer: DispatchSourceTimer?

    /// Looks with `look` on `queue` every ``interval`` (unless already looking); `look`
    /// disconnects the clients that hung up and says whether half-closed ones are left, and the
    /// looking ends when none is.
    func start(on queue: DispatchQueue, look: @escaping () -> Bool) {
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(500))
        timer.setEventHandler { [unowned self] in
            if !look() { stop() }
        }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }
}
