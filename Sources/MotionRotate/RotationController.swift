import FoundationEssentials
import MotionCore

/// Applies ``RotationPolicy`` to the helper's inputs and turns the screen through a
/// ``Rotator``. The single owner of that state, fed in order by ``RotationLoop``.
///
/// Rotation is held while `--lock-file` exists (looked at on every input) or after an odd
/// number of SIGUSR1s.
struct RotationController {
    private var policy: RotationPolicy
    private var rotator: Rotator
    private let lockFile: String?
    private var heldBySignal = false
    private var heldByFile = false

    init(policy: RotationPolicy, rotator: Rotator, lockFile: String?) {
        self.policy = policy
        self.rotator = rotator
        self.lockFile = lockFile
    }

    /// When the next tick is due, or nil when nothing waits on time.
    var deadline: Double? { policy.deadline }

    mutating func handle(_ input: RotationInput) {
        switch input {
        case .orientation(let orientation, let time):
            refreshHold()
            settle(until: time)
            policy.observe(orientation, at: time)
            settle(until: time)
        case .tick(let time):
            refreshHold()
            settle(until: time)
        case .toggleHold:
            heldBySignal.toggle()
            Log.info(heldBySignal ? "rotation held (SIGUSR1; send it again to release)" : "SIGUSR1 released its hold")
            refreshHold()
        case .end:
            settle(until: .infinity)
        }
    }

    private mutating func settle(until time: Double) {
        switch policy.advance(to: time) {
        case .rotate(let orientation, let at)?:
            Log.info("rotating to \(orientation.rawValue) at \(Log.seconds(at))")
            rotate(to: orientation)
        case .hold(let orientation, let at)?:
            Log.info("not rotating to \(orientation.rawValue) at \(Log.seconds(at)): rotation is held")
        case nil:
            break
        }
    }

    private mutating func refreshHold() {
        if let lockFile {
            let exists = FileManager.default.fileExists(atPath: lockFile)
            if exists != heldByFile { Log.info(exists ? "rotation held: \(lockFile) exists" : "\(lockFile) is gone: its hold is released") }
            heldByFile = exists
        }
        if let orientation = policy.setHeld(heldBySignal || heldByFile) {
            Log.info("rotating to \(orientation.rawValue): the hold is released")
            rotate(to: orientation)
        }
    }

    private mutating func rotate(to orientation: DeviceOrientation) {
        guard let rotation = ScreenRotation(orientation), rotator.rotate(to: rotation) else { return }
        policy.didRotate(to: orientation)
    }
}
