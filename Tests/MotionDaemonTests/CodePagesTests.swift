import Foundation
import Glibc
import Testing
@testable import MotionDaemon

/// Giving back resident code and read-only data, in this very process.
@Suite("CodePages")
struct CodePagesTests {
    @Test("the file pages of code and constants leave the process's resident set, and the process runs on")
    func release() throws {
        // A code mapping of this test binary's own file (r-x, like the loader's), read through:
        // other tests running beside this one fault the loader's mapping back in as they run,
        // where this one only this test reads.
        let fd = open("/proc/self/exe", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var status = stat()
        try #require(fstat(fd, &status) == 0)
        let size = min(Int(status.st_size), 4 << 20) & ~4095
        try #require(size >= 1 << 20, "the test binary is \(status.st_size) bytes")
        let mapped = try #require(mmap(nil, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(mapped, size) }
        let code = UnsafeRawPointer(mapped)
        let sum = { (0..<(size / 4096)).reduce(0) { $0 &+ Int(code.load(fromByteOffset: $1 * 4096 + 17, as: UInt8.self)) } }
        let expected = sum()
        #expect(try Self.resident(at: code) == size / 1024)
        let advised = CodePages.release()
        #expect(advised > size, "\(advised) bytes of mappings advised: this one and the loader's")
        #expect(try Self.resident(at: code) == 0, "the code mapping left the resident set")
        // Read again: the same bytes come back from the page cache, and the process runs on.
        #expect(sum() == expected)
        #expect(try Self.resident(at: code) == size / 1024)
        let function: @convention(c) () -> Int32 = { 42 }
        #expect(function() == 42)
    }

    /// The resident kB of the mapping that holds `address` (/proc/self/smaps).
    static func resident(at address: UnsafeRawPointer) throws -> Int {
        // Read to the end by hand: Foundation takes one block of a /proc file (its size is 0).
        let fd = open("/proc/self/smaps", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var all: [UInt8] = [], block = [UInt8](repeating: 0, count: 65_536)
        while case let n = block.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }), n > 0 { all += block[0..<n] }
        let text = String(decoding: all, as: UTF8.self)
        var inside = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let bounds = fields.first?.split(separator: "-"), bounds.count == 2,
               let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) {
                inside = (start..<end).contains(UInt(bitPattern: address))
            } else if inside, fields.first == "Rss:", fields.count >= 2 {
                return try #require(Int(fields[1]))
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test("a file in RAM (tmpfs: its page-cache pages are dirty) is given back all the same; a page this process wrote stays, with what was written")
    func fileInRAM() throws {
        let path = "/dev/shm/motiond-code-pages-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        let size = 16 * 4096
        let bytes = [UInt8](repeating: 0x5A, count: size)
        try #require(bytes.withUnsafeBytes { write(fd, $0.baseAddress, size) } == size)
        // Read-only, like code: every page read once.
        let code = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(code, size) }
        let readOnly = UnsafeRawPointer(code)
        #expect((0..<16).reduce(0) { $0 + Int(readOnly.load(fromByteOffset: $1 * 4096, as: UInt8.self)) } == 16 * 0x5A)
        // Written once, then read-only, like relocated data: a private copy of its first page.
        let data = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(data, size) }
        data.storeBytes(of: 0xA5, as: UInt8.self)
        try #require(mprotect(data, size, PROT_READ) == 0)
        #expect(try Self.resident(at: readOnly) == 64)
        CodePages.release()
        #expect(try Self.resident(at: readOnly) == 0, "the tmpfs file's pages left the resident set")
        #expect(readOnly.load(as: UInt8.self) == 0x5A, "and come back on the next read")
        #expect(UnsafeRawPointer(data).load(as: UInt8.self) == 0xA5, "what this process wrote is kept")
    }
}
