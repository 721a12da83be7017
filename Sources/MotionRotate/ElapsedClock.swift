/// Seconds since the helper started, on Swift's `ContinuousClock`: the time base of live
/// orientations, debounce deadlines and their log lines.
struct ElapsedClock: Sendable {
    private let start = ContinuousClock.now

    var now: Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }
}
