import MotionCore

/// Orientations from motiond as they arrive, stamped on the helper's clock. When the stream
/// ends (the daemon went away or could not be reached), it is asked for again after a pause
/// that doubles from 1 s to at most 30 s and starts over once orientations flow.
enum LiveOrientations {
    static func feed(from subscribe: @Sendable () -> AsyncStream<DeviceOrientation>, clock: ElapsedClock,
                     into continuation: AsyncStream<RotationInput>.Continuation) async {
        var pause = 1.0
        while !Task.isCancelled {
            for await orientation in subscribe() {
                continuation.yield(.orientation(orientation, at: clock.now))
                pause = 1
            }
            Log.warning("no orientation from motiond (the stream ended); asking again in \(Int(pause)) s")
            guard (try? await Task.sleep(for: .seconds(pause))) != nil else { return }
            pause = min(pause * 2, 30)
        }
    }
}
