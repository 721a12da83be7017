import Glibc

/// Gives back the resident pages of code and read-only data the daemon is not using. The
/// binary carries the Swift runtime, Foundation and a TOML parser (~18 MB of code); starting
/// (options, the configuration file, discovery, the engine's models) and serving clients touch
/// megabytes of it that a daemon reading a still device a few times a second does not run, and
/// each fault maps 64 KiB around it: 7.5 MiB of resident code where the rest loop needs a
/// fraction.
///
/// `release()` drops the file-backed, never-written read-only mappings of the executable and
/// its libraries (code, constant data, ICU's tables) from the process's page tables
/// (`madvise(MADV_DONTNEED)`): once started, each time the device has come to rest, and after
/// a subscriber leaves during a rest. Nothing is lost: a page still needed comes back on its
/// next use from the page cache (a minor fault, no disk read while the file is cached; a few
/// hundred of them, about a millisecond, when motion starts). A mapping with any page this
/// process wrote (relocated data, a debugger's breakpoint: private copies) is left alone, and
/// writable mappings are never touched. (Library pages shared with other processes stay in
/// their page tables and in memory: this only stops counting them as ours.)
enum CodePages {
    /// Drops the resident pages of those mappings; returns how many bytes of mappings were
    /// advised (0 when /proc is unreadable, which changes nothing). The mappings are advised
    /// together once smaps has been read: reading it runs string code of its own, which an
    /// earlier advice would only fault back in (1.8–3.1 MiB of the executable's code resident
    /// half a second after a release instead of 0.7–0.9, docs/PERFORMANCE.md).
    @discardableResult
    static func release() -> Int {
        var ranges: [(start: UInt, end: UInt)] = []
        guard let smaps = fopen("/proc/self/smaps", "r") else { return 0 }
        var code: (start: UInt, end: UInt)?
        var clean = true
        func collect() {
            defer { code = nil }
            if let range = code, clean { ranges.append(range) }
        }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), smaps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                // A field of the current mapping: one with a page this process wrote (a
                // breakpoint, text relocations: a private copy, counted as Anonymous) is left
                // alone, as dropping it would lose what was written. Private_Dirty alone does
                // not say that: on a root in RAM (an initramfs, a live system's tmpfs) every
                // file page is dirty in the page cache, and stays there when unmapped.
                if first == "Anonymous:", fields.count >= 2, fields[1] != "0" { clean = false }
                continue
            }
            // A new mapping, `start-end perms offset dev inode path`: code or read-only data
            // mapped from a file (the executable, libc, libiio, ICU's tables…), not the vDSO.
            collect()
            clean = true
            let bounds = first.split(separator: "-")
            guard fields.count >= 6, fields[1] == "r-xp" || fields[1] == "r--p", fields[5].hasPrefix("/"), bounds.count == 2,
                  let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else { continue }
            code = (start, end)
        }
        collect()
        fclose(smaps)
        var advised = 0
        for range in ranges {
            guard let address = UnsafeMutableRawPointer(bitPattern: range.start) else { continue }
            if madvise(address, Int(range.end - range.start), MADV_DONTNEED) == 0 { advised += Int(range.end - range.start) }
        }
        return advised
    }
}
