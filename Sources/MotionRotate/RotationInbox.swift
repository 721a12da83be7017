import Dispatch
import MotionSync

/// Where the helper's inputs meet, in the order they came: the threads that read (the replayed
/// file, motiond, SIGUSR1) post into it, and the main loop takes them one at a time, waiting at
/// most until its next deadline. A semaphore, not a queue: the waiting thread sleeps in the
/// kernel until an input or its deadline, and nothing else in the process runs on a timer.
final class RotationInbox: Sendable {
    private let inputs = Lock<[RotationInput]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func post(_ input: RotationInput) {
        inputs.withLock { $0.append(input) }
        arrived.signal()
    }

    /// The oldest input not yet taken, waiting for one as long as it takes.
    func next() -> RotationInput {
        arrived.wait()
        return inputs.withLock { $0.removeFirst() }
    }

    /// The oldest input not yet taken, waiting for one for at most `seconds`; nil when the
    /// wait ran out first.
    func next(within seconds: Double) -> RotationInput? {
        guard arrived.wait(timeout: .now() + max(0, seconds)) == .success else { return nil }
        return inputs.withLock { $0.removeFirst() }
    }
}
