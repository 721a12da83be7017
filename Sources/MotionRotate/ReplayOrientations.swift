import Foundation
import MotionProtocol

/// Orientation events from a file (or `-`, standard input) of JSON lines as the socket sends
/// them and `motionctl analyze --json` prints them:
/// `{"type":"orientation","timestamp":12.5,"orientation":"landscapeLeft"}`. Lines of other
/// types are skipped; a malformed line is logged and skipped. The events' timestamps are the
/// replay's clock, so debounce and hold decisions come out as they would have live, at once.
/// The file is read on its own thread as it grows (a pipe or FIFO works); its end settles what
/// is pending.
enum ReplayOrientations {
    static func start(path: String, into continuation: AsyncStream<RotationInput>.Continuation) {
        let reader = Thread {
            defer {
                continuation.yield(.end)
                continuation.finish()
            }
            guard let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
                Log.warning("cannot open \(path)")
                return
            }
            var buffer = Data()
            var number = 0
            func take(_ line: Data) {
                number += 1
                guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { return }
                do {
                    if case .event(.orientation(let orientation, let timestamp))? = try ServerMessage.parse(line: line) {
                        continuation.yield(.orientation(orientation, at: timestamp))
                    }
                } catch {
                    Log.warning("\(path):\(number): skipped: \(error)")
                }
            }
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    take(buffer[buffer.startIndex..<newline])
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { take(buffer) }
        }
        reader.start()
    }
}
