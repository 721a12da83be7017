import Glibc

/// glibc's malloc arenas. By default every thread that allocates may get an arena of its own,
/// and memory freed in one stays resident: after a burst of client connections (served by
/// Dispatch's worker threads) the daemon kept megabytes it no longer used. Its few threads
/// barely contend, so one arena costs nothing measurable and keeps the footprint flat.
enum MallocArenas {
    /// `mallopt(M_ARENA_MAX, count)`; malloc.h is not part of the Glibc module, so the symbol
    /// is looked up at run time (a libc without it is left alone).
    static func limit(to count: Int32) {
        guard let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mArenaMax: Int32 = -8
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mArenaMax, count)
    }
}
