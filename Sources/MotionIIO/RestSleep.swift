import Logging
import MotionSync

/// Sleeping through rest on a device's own motion detector: while a polled device is read at
/// the rest rate, its motion events (``MotionWakeup``, the IIO events ABI) are armed and the
/// reading thread waits on them instead of waking every rest interval — no periodic wake-up
/// at all while the device lies still, but one reading every ``check`` seconds in case the
/// detector misses a slow turn.
///
/// Trust, but verify: the events' thresholds mean different things on different drivers
/// (MotionEventArming), so if a movement is ever found by that check rather than by an event,
/// the events of this device are not used again and it is read every rest interval like a
/// device without them (logged). A device without usable events (none in `events/`, the
/// event descriptor refused, a remote context) is found out the first time, logged once, and
/// read every rest interval.
///
/// The reading thread calls ``sleepIfResting()``; ``setResting(_:)`` comes from the source's
/// queue; ``end()`` before the thread is stopped, ``close()`` after. All shared state is behind one ``Lock``.
final class RestSleep: Sendable {
    /// Seconds between readings while sleeping on events.
    static let check = SourceRequest.restEventCheck
    /// The motion that wakes the device, G: the still-stretch tolerance.
    static let threshold = 0.05

    private let device: IIODevice
    private let logger: Logger
    private struct State {
        var resting = false
        var wakeup: MotionWakeup?
        /// No usable events on this device (or they missed a movement).
        var unusable = false
        /// The last wait ended by the check's timeout (no event, no cancel).
        var wokeByCheck = false
    }
    private let state = Lock(State())
    /// Whether the device offers motion events at all (``MotionWakeup/offers(of:)``: listed
    /// in `events/`, on this machine); known without touching them.
    private let offered: Bool

    init(device: IIODevice, logger: Logger) {
        self.device = device
        self.logger = logger
        offered = (try? MotionWakeup.offers(of: device)) != nil
    }

    /// Whether resting may sleep on this device's events: it offers some, and they have not
    /// failed or missed a movement. One that cannot is read every rest interval.
    var mayUseEvents: Bool {
        offered && !state.withLock { $0.unusable }
    }

    /// On the reading thread, before it reads: while resting, waits until the device moves
    /// (its events fire), the check is due, or rest ends. Not resting, or without usable
    /// events: disarms what is armed and returns at once (the thread's timer paces it).
    func sleepIfResting() {
        let (resting, unusable, armed) = state.withLock { ($0.resting, $0.unusable, $0.wakeup) }
        guard resting, !unusable else {
            if let armed { disarm(armed) }
            return
        }
        let wakeup: MotionWakeup
        if let armed {
            wakeup = armed
        } else {
            do {
                wakeup = try MotionWakeup(device: device, threshold: Self.threshold)
            } catch {
                state.withLock { $0.unusable = true }
                logger.info("\(device) cannot wake motiond when it moves (\(error)): at rest it is read every rest interval")
                return
            }
            logger.info("\(device) at rest: sleeping until its motion events fire (\(wakeup.arming.offers.count) armed), reading at least every \(Int(Self.check)) s")
            // Rest may have ended while arming: then the wait below returns at once.
            let stillResting = state.withLock { state in
                state.wakeup = wakeup
                return state.resting
            }
            if !stillResting { wakeup.cancel() }
        }
        do {
            let events = try wakeup.wait(timeout: Self.check)
            state.withLock { $0.wokeByCheck = events.isEmpty && $0.resting }
        } catch {
            state.withLock { $0.unusable = true }
            logger.notice("waiting on the motion events of \(device) failed (\(error)): at rest it is read every rest interval")
            disarm(wakeup)
        }
    }

    /// Rest begins or ends (from any thread). Ending it wakes a waiting reader at once; if the
    /// movement that ended it was found by the check and not by an event, the events are not
    /// trusted again.
    func setResting(_ resting: Bool) {
        let wakeup = state.withLock { state -> MotionWakeup? in
            if !resting, state.resting, state.wokeByCheck, state.wakeup != nil, !state.unusable {
                state.unusable = true
                logger.notice("the motion events of \(device) missed a movement that a reading found: at rest it is read every rest interval from now on")
            }
            state.resting = resting
            state.wokeByCheck = false
            return state.wakeup
        }
        if !resting { wakeup?.cancel() }
    }

    /// The reader is stopping: a waiting reader wakes at once and no reading waits again.
    func end() {
        let wakeup = state.withLock { state in
            state.resting = false
            return state.wakeup
        }
        wakeup?.cancel()
    }

    /// Disarms the events, restoring what arming changed; once the reading thread has stopped.
    func close() {
        if let armed = state.withLock({ $0.wakeup }) { disarm(armed) }
    }

    private func disarm(_ wakeup: MotionWakeup) {
        state.withLock { if $0.wakeup === wakeup { $0.wakeup = nil } }
        do {
            try wakeup.disarm()
        } catch {
            logger.warning("cannot restore the motion events of \(device): \(error)")
        }
    }
}
