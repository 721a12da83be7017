// libFuzzer target: ServerMessage.parse(line:), a client's reader of the daemon's lines.
// A message it accepts, written again as the daemon writes it (`line`), must parse back to
// a message that writes the same line. (deviceMotion's attitude is exempt from the exact
// comparison: Attitude(quaternion:) normalises, and normalising again moves the last bits;
// its line must still parse back to a deviceMotion.)
import MotionProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let message = try? ServerMessage.parse(line: bytes) else { return 0 }
    let line = message.line
    let again: ServerMessage?
    do {
        again = try ServerMessage.parse(line: Array(line.utf8))
    } catch {
        fatalError("a message's own line does not parse: \(error)\nline: \(line)")
    }
    guard let again else { fatalError("a message's own line has an unknown type\nline: \(line)") }
    if carriesAttitude(message) {
        if !carriesAttitude(again) { fatalError("a deviceMotion line parses back as something else\nline: \(line)") }
    } else if again.line != line { fatalError("line round trip changed the message\nfirst:  \(line)\nsecond: \(again.line)") }
    return 0
}

func carriesAttitude(_ message: ServerMessage) -> Bool {
    switch message {
    case .deviceMotion: return true
    case .reply(_, .success(.value(let value, _))): return carriesAttitude(value)
    default: return false
    }
}
