/// Tracks one kind of recurring fault (a read error, a timeout) so it is logged once when it
/// starts and once when it ends, never once per sample.
struct FaultEpisode {
    private(set) var isActive = false
    private(set) var occurrences = 0

    /// Records an occurrence; true when this starts a new episode (log it).
    mutating func occurred() -> Bool {
        occurrences += 1
        guard !isActive else { return false }
        isActive = true
        return true
    }

    /// Records a success; returns the episode's occurrence count when one just ended (log it).
    mutating func recovered() -> Int? {
        guard isActive else { return nil }
        defer {
            isActive = false
            occurrences = 0
        }
        return occurrences
    }
}
