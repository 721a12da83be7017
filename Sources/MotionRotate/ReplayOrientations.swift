import Glibc
import MotionProtocol
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
            try BackgroundThread.start {
                defer { inbox.post(.end) }
                let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    Log.warning("cannot open \(path): \(String(cString: strerror(errno)))")
                    return
                }
                defer { if fd != STDIN_FILENO { close(fd) } }
                var pending: [UInt8] = []
                var number = 0
                func take(_ line: ArraySlice<UInt8>) {
                    number += 1
                    guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { return }
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
                    if count < 0 { Log.warning("cannot read \(path): \(String(cString: strerror(errno)))") }
                    guard count > 0 else { break }
                    pending += chunk[0..<count]
                    var start = 0
                    while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                        take(pending[start..<newline])
                        start = newline + 1
                    }
                    pending.removeFirst(start)
                }
                if !pending.isEmpty { take(pending[...]) }
            }
        } catch {
            Log.warning("cannot read \(path): no thread to read it on (\(error))")
            inbox.post(.end)
        }
    }
}
