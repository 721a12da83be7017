import Dispatch

/// Checks the confinement rule that queue-confined types rely on (docs/ARCHITECTURE.md, "Queues
/// and threads"): a method that touches state confined to a queue begins with
/// ``assertOnQueue()``, and a method that waits for a queue (`sync`) with
/// ``assertNotOnQueue()``, which would otherwise deadlock. Debug builds (`make check`, the
/// sanitizer tiers) trap on a violation; release builds check nothing.
extension DispatchQueue {
    /// Traps in debug builds unless the caller runs on this queue (in work submitted to it with
    /// `async` or `sync`).
    @inline(__always)
    public func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(self))
        #endif
    }

    /// Traps in debug builds if the caller runs on this queue: what it is about to do (wait
    /// for the queue with `sync`) would deadlock.
    @inline(__always)
    public func assertNotOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .notOnQueue(self))
        #endif
    }
}
