import Glibc
import MotionSync

/// A trace file read a line at a time (`getline`), so a replay holds one row in memory however
/// long the file is. Line numbers count from 1 (the header).
final class TraceLines {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    /// The number of the line ``next()`` returned last.
    private(set) var number = 0

    /// Opens `path` for reading; throws the system's reason, or that it is not a regular file.
    init(path: String) throws(SourceError) {
        let fd: Int32
        do {
            fd = try RegularFile.open(path)
        } catch {
            throw .trace(path: path, reason: error == .notRegularFile ? "\(error)" : "cannot read the file (\(error))")
        }
        guard let file = fdopen(fd, "r") else {
            let code = errno
            close(fd)
            throw .trace(path: path, reason: "cannot read the file (\(SystemError(code)))")
        }
        self.file = file
    }

    deinit {
        free(buffer)
        fclose(file)
    }

    /// The next line without its line ending; nil at the end of the file (or a read error:
    /// ``failure`` says which).
    func next() -> Substring? {
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        number += 1
        var length = count
        let bytes = UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self)
        while length > 0 && (bytes[length - 1] == UInt8(ascii: "\n") || bytes[length - 1] == UInt8(ascii: "\r")) { length -= 1 }
        return Substring(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
    }

    /// Why reading stopped before the end of the file, if it did.
    var failure: String? {
        ferror(file) != 0 ? SystemError.last().reason : nil
    }
}
