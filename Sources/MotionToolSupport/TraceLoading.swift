import ArgumentParser
import Foundation
import Glibc
import MotionCore

/// Reads a trace or fails (exit 1, not a usage error: the command line was right, the file
/// is missing, unreadable or malformed) with the reason, naming the file.
public func loadTrace(_ path: String) throws -> TraceReader.Trace {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        // The system's reason (no such file, permission denied) where there is one.
        let reason = access(path, R_OK) != 0 ? String(cString: strerror(errno)) : error.localizedDescription
        Console.error("cannot read \(path): \(reason)")
        throw ExitCode.failure
    }
    do {
        return try TraceReader.parse(text)
    } catch {
        Console.error("\(path): \(error)")
        throw ExitCode.failure
    }
}
