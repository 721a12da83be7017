import CMalloc

/// The daemon's malloc heap (glibc): how it is set up, and how much of it is in use.
enum Heap {
    /// One arena. By default every thread that allocates may get an arena of its own, and
    /// memory freed in one stays resident: after a burst of client connections (served by
    /// Dispatch's worker threads) the daemon kept megabytes it no longer used. Its few threads
    /// barely contend, so one arena costs nothing measurable and keeps the footprint flat.
    static func configure() {
        mallopt(M_ARENA_MAX, 1)
    }

    /// Gives the free pages of the heap back to the system (`malloc_trim`): what serving a
    /// client or starting allocated and freed stays resident, and private, until then. Runs
    /// where ``CodePages/release()`` does, off the sample path.
    static func trim() {
        malloc_trim(0)
    }

    /// Bytes allocated and not yet freed (mallinfo2's `uordblks` + `hblkhd`): unlike the
    /// resident size it does not keep freed memory, so it shows a leak as a leak.
    static var bytesInUse: Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }
}
