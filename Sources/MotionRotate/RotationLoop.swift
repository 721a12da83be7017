import Dispatch
import Glibc

/// The helper's main loop: feeds a ``RotationController`` from one input stream until the
/// stream ends, with SIGUSR1 turned into ``RotationInput/toggleHold``. Live, it also wakes the
/// controller at each debounce deadline and, with a lock file, every second to notice the file
/// come and go; a replay runs on its events' clock alone.
enum RotationLoop {
    /// How the loop gets its sense of time.
    enum Timing {
        case live(ElapsedClock, pollLockFile: Bool)
        case replay
    }

    /// How often the lock file is looked at when nothing else happens (seconds).
    static let lockFilePoll = 1.0

    static func run(_ controller: inout RotationController, inputs: AsyncStream<RotationInput>,
                    continuation: AsyncStream<RotationInput>.Continuation, timing: Timing, source: String) async {
        signal(SIGUSR1, SIG_IGN)
        let holdSignal = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "motiond-rotate.sigusr1"))
        holdSignal.setEventHandler { continuation.yield(.toggleHold) }
        holdSignal.resume()
        defer { holdSignal.cancel() }
        Log.info("following the device orientation from \(source); SIGUSR1 holds rotation and releases it")

        var poll: Task<Void, Never>?
        if case .live(let clock, pollLockFile: true) = timing {
            poll = Task {
                while (try? await Task.sleep(for: .seconds(lockFilePoll))) != nil {
                    continuation.yield(.tick(at: clock.now))
                }
            }
        }
        defer { poll?.cancel() }

        var wakeUp: Task<Void, Never>?
        for await input in inputs {
            controller.handle(input)
            wakeUp?.cancel()
            guard case .live(let clock, _) = timing, let deadline = controller.deadline else { continue }
            wakeUp = Task {
                guard (try? await Task.sleep(for: .seconds(max(0, deadline - clock.now)))) != nil else { return }
                continuation.yield(.tick(at: max(deadline, clock.now)))
            }
        }
        wakeUp?.cancel()
    }
}
