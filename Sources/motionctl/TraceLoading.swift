import ArgumentParser
import Foundation
import MotionCore

/// Reads a trace or fails with the reason, naming the file.
func loadTrace(_ path: String) throws -> TraceReader.Trace {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ValidationError("cannot read \(path): \(error.localizedDescription)")
    }
    do {
        return try TraceReader.parse(text)
    } catch {
        throw ValidationError("\(path): \(error)")
    }
}
