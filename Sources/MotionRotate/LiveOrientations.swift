import Glibc
import MotionCore
import MotionProtocol
import MotionSync
import MotionToolSupport

/// Orientations from motiond as they arrive, stamped on the helper's clock, read on a thread of
/// their own from one subscription to the `orientation` stream. When motiond cannot be reached
/// or the connection ends (it stopped or restarted), the reason is logged and it is asked again
/// after a pause that doubles from 1 s to at most 30 s and starts over once subscribed.
/// Follows for as long as the helper runs.
enum LiveOrientations {
    static func start(socket path: String, clock: ElapsedClock, into inbox: RotationInbox) throws(SystemError) {
        try BackgroundThread.start(name: "orientations") {
            var pause = 1.0
            while true {
                do throws(DaemonConnection.Failure) {
                    let connection = try DaemonConnection(path: path)
                    try connection.subscribe(.init(id: 1, stream: .orientation))
                    Log.info("connected to motiond at \(path)")
                    pause = 1
                    while true {
                        if case .event(.orientation(let orientation, _)) = try connection.next() {
                            inbox.post(.orientation(orientation, at: clock.now))
                        }
                    }
                } catch {
                    Log.warning("\(error); asking again in \(Int(pause)) s")
                }
                usleep(useconds_t(pause * 1_000_000))
                pause = min(pause * 2, 30)
            }
        }
    }
}
