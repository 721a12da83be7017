import ArgumentParser
import MotionCore

/// Reads a trace or fails (exit 1, not a usage error: the command line was right, the file
/// is missing, unreadable or malformed) with the reason, naming the file.
public func loadTrace(_ path: String) throws -> TraceReader.Trace {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        Console.error("cannot read \(path): \(fileErrorReason(error))")
        throw ExitCode.failure
    }
    do {
        return try TraceReader.parse(text)
    } catch {
        Console.error("\(path): \(error)")
        throw ExitCode.failure
    }
}
