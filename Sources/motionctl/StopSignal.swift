import Glibc
import Synchronization

/// SIGINT and SIGTERM as a request to finish, for commands that should save their work rather
/// than die mid-way (`motionctl record`): once ``install()`` has run, the signals set
/// ``requested`` instead of ending the process; the command polls it.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    static var requested: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        // Initialized here, never first in a handler (lazy initialization takes a lock).
        _ = requested
        for signal in [SIGINT, SIGTERM] {
            // An atomic store is async-signal-safe.
            Glibc.signal(signal) { _ in StopSignal.flag.store(true, ordering: .relaxed) }
        }
    }
}
