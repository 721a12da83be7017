import MotionCore

/// When a reported device orientation becomes a screen rotation.
///
/// Only the four upright orientations rotate, and only once one has held for `debounce`
/// seconds: a quick wobble, or a turn interrupted by lying flat, does nothing. Flat and unknown
/// keep the current rotation. While held (lock file, SIGUSR1) orientations still settle, and
/// releasing the hold rotates to the last settled one. Pure: times are seconds on any clock the
/// caller chooses (the event timestamps when replaying, ``ElapsedClock`` live).
struct RotationPolicy {
    /// What to do when an orientation settles.
    enum Decision: Equatable {
        /// Rotate to the orientation now; `at` is when it settled.
        case rotate(DeviceOrientation, at: Double)
        /// It settled at `at` but rotation is held: the screen stays as it is.
        case hold(DeviceOrientation, at: Double)
    }

    /// An upright orientation waiting out the debounce.
    private struct Pending {
        var orientation: DeviceOrientation
        var since: Double
    }

    /// How long (seconds) an orientation must hold before the screen follows; 0 follows at once.
    let debounce: Double
    private var pending: Pending?
    /// The last orientation that held for `debounce`.
    private(set) var settled: DeviceOrientation?
    /// The orientation the screen was last turned to; nil until the first success, so the first
    /// settled orientation always rotates (the screen may not match it at start).
    private(set) var applied: DeviceOrientation?
    private(set) var isHeld = false

    init(debounce: Double) {
        self.debounce = debounce
    }

    /// When the pending orientation settles, or nil when none is pending.
    var deadline: Double? { pending.map { $0.since + debounce } }

    /// A newly reported orientation, at `time`. Returning to the settled orientation, or any
    /// non-upright one, cancels what was pending.
    mutating func observe(_ orientation: DeviceOrientation, at time: Double) {
        guard orientation.isUpright, orientation != settled else {
            pending = nil
            return
        }
        if pending?.orientation != orientation { pending = Pending(orientation: orientation, since: time) }
    }

    /// Settles the pending orientation if it has held until `time`.
    mutating func advance(to time: Double) -> Decision? {
        guard let pending, let deadline, time >= deadline else { return nil }
        self.pending = nil
        settled = pending.orientation
        guard pending.orientation != applied else { return nil }
        return isHeld ? .hold(pending.orientation, at: deadline) : .rotate(pending.orientation, at: deadline)
    }

    /// Holds or releases rotation; on release, the settled orientation the screen does not show yet.
    mutating func setHeld(_ held: Bool) -> DeviceOrientation? {
        defer { isHeld = held }
        guard isHeld, !held, let settled, settled != applied else { return nil }
        return settled
    }

    /// The screen now shows `orientation`. A failed rotation is not recorded, so the next
    /// orientation to settle tries again.
    mutating func didRotate(to orientation: DeviceOrientation) {
        applied = orientation
    }
}
