import CFrameAddress
import Glibc

/// Gives back the pages of the calling thread's stack below its current frame: what deeper
/// calls touched earlier and nothing will read again (by the ABI, memory below the stack
/// pointer holds nothing). The main thread's start (option parsing, the configuration file,
/// discovery) runs tens of KiB deep and then waits in `dispatchMain` for the rest of the
/// process's life, the pages it touched private memory all that while.
///
/// Only the calling thread's own stack, from the stack's mapping in `/proc/self/maps` up to a
/// page below this frame: nothing runs meanwhile on that stack but this call, and a signal
/// handler's frame is built after the system call returns. A page used again later is a fresh
/// zero page.
enum ThreadStack {
    /// Returns the bytes given back (0 when the mapping is not found or nothing lies below).
    @discardableResult
    static func releaseBelowCurrentFrame() -> Int {
        // The real stack's, never a local's address (a sanitizer's fake stack lies elsewhere).
        let frame = UInt(bitPattern: motiond_frame_address())
        guard let mapping = mapping(containing: frame) else { return 0 }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        // A page of margin: this function's frame and madvise's own call lie about `frame`.
        let high = (frame - page) & ~(page - 1)
        guard high > mapping.lowerBound, let start = UnsafeMutableRawPointer(bitPattern: mapping.lowerBound) else { return 0 }
        let length = Int(high - mapping.lowerBound)
        return madvise(start, length, MADV_DONTNEED) == 0 ? length : 0
    }

    /// The address range of the mapping that holds `address` (`/proc/self/maps`).
    private static func mapping(containing address: UInt) -> Range<UInt>? {
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 0x20 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let bounds = text.split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else { continue }
            if (start..<end).contains(address) { return start..<end }
        }
        return nil
    }
}
