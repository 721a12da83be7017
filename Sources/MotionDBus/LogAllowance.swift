/// How much one bus client may make motiond log: ``lines`` lines per ``interval`` seconds,
/// then one line saying its further lines are left out; how many were left out is told with
/// its next line after the interval, or when it leaves the bus. A client flooding the face with
/// calls (refused or not) thus costs a few lines per interval, not one per call.
///
/// Pure bookkeeping: the caller gives the time (seconds on any monotonic clock) and logs.
struct LogAllowance {
    /// Lines one client may cause per interval.
    static var lines: Int { 8 }
    /// The interval, in seconds.
    static var interval: Double { 10 }

    private var windows: [String: Window] = [:]

    private struct Window {
        var start: Double
        var used = 0
        var leftOut = 0
    }

    /// What to do with one line about a client.
    enum Verdict: Equatable {
        /// Log it; `leftOut` lines about the client were left out before it (say so first
        /// when not 0).
        case log(leftOut: Int)
        /// Leave it out, and say that the client's further lines are left out for now.
        case quieten
        /// Leave it out.
        case leaveOut
    }

    /// Counts a line about `client` at time `now`.
    mutating func admit(_ client: String, at now: Double) -> Verdict {
        var window = windows[client] ?? Window(start: now)
        var leftOut = 0
        if now - window.start >= Self.interval {
            leftOut = window.leftOut
            window = Window(start: now)
        }
        defer { windows[client] = window }
        window.used += 1
        if window.used <= Self.lines { return .log(leftOut: leftOut) }
        window.leftOut += 1
        return window.used == Self.lines + 1 ? .quieten : .leaveOut
    }

    /// `client` left: forgets it; the lines about it left out and not yet told.
    mutating func forget(_ client: String) -> Int {
        windows.removeValue(forKey: client)?.leftOut ?? 0
    }
}
