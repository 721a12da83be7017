import Glibc
import MotionProtocol
import MotionSync
import MotionToolSupport

/// Orientation events from a file (or `-`, standard input) of JSON lines as the socket sends
/// them and `motionctl analyze --json` prints them:
/// `{"type":"orientation","timestamp":12.5,"orientation":"landscapeLeft"}`. Lines of other
/// types are skipped; a malformed line is logged and skipped. The events' timestamps are the
/// replay's clock, so debounce and hold decisions come out as they would have live, at once.
/// The file is read on its own thread as it grows (a pipe or FIFO works); its end settles what
/// is pending.
enum ReplayOrientations {
    static func start(path: String, into inbox: RotationInbox) {
        do {
            try BackgroundThread.start(name: "replay") {
                defer { inbox.post(.end) }
                let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    Log.warning("cannot open \(path): \(SystemError.last())")
                    return
                }
                defer { if fd != STDIN_FILENO { close(fd) } }
                // Lines of any length: a file is not a peer to guard against.
                var framer = LineFramer(limit: .max)
                var number = 0
                func take(_ line: ArraySlice<UInt8>) {
                    number += 1
                    guard !line.allSatisfy({ $0 == UInt8(ascii: " ") }) else { return }
                    do {
                        if case .event(.orientation(let orientation, let timestamp))? = try ServerMessage.parse(line: line) {
                            inbox.post(.orientation(orientation, at: timestamp))
                        }
                    } catch {
                        Log.warning("\(path):\(number): skipped: \(error)")
                    }
                }
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 { Log.warning("cannot read \(path): \(SystemError.last())") }
                    // The end ends the last line too, terminated or not.
                    if count > 0 { framer.append(chunk[0..<count]) } else if framer.buffered > 0 { framer.append([UInt8(ascii: "\n")]) }
                    while let line = try? framer.nextLine() { take(line) }
                    guard count > 0 else { break }
                }
            }
        } catch {
            Log.warning("cannot read \(path): no thread to read it on (\(error))")
            inbox.post(.end)
        }
    }
}
