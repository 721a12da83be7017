import ArgumentParser
import FoundationEssentials
import MotionCore
import MotionSync

/// Reads a trace or fails (exit 1, not a usage error: the command line was right, the file
/// is missing, unreadable or malformed) with the reason, naming the file.
public func loadTrace(_ path: String) throws -> TraceReader.Trace {
    let text: String
    do {
        text = try traceText(path)
    } catch {
        Console.error("\(error)")
        throw ExitCode.failure
    }
    do {
        return try TraceReader.parse(text)
    } catch {
        Console.error("\(path): \(error)")
        throw ExitCode.failure
    }
}

/// Why a trace file could not be read as text; the description names the file.
private struct TraceFileError: Error, CustomStringConvertible {
    var description: String
}

/// The text of the trace at `path`, which must be a regular file of UTF-8 text (a FIFO or
/// `/dev/zero` is refused as not a regular file, never waited on: ``RegularFile``).
private func traceText(_ path: String) throws(TraceFileError) -> String {
    let bytes: [UInt8]
    do {
        bytes = try RegularFile.contents(of: path)
    } catch .notRegularFile {
        throw TraceFileError(description: "\(path): not a regular file")
    } catch {
        throw TraceFileError(description: "cannot read \(path): \(error)")
    }
    if let offset = UTF8Text.firstInvalidByte(bytes) {
        // Counted from 1, as `cmp` counts bytes.
        throw TraceFileError(description: "\(path): not UTF-8 text (byte \(offset + 1))")
    }
    return String(decoding: bytes, as: UTF8.self)
}
