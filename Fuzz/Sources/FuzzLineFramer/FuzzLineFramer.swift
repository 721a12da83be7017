// libFuzzer target: LineFramer, the byte stream to lines splitter in front of every request
// and message. The input describes a conversation: byte 0 picks the line limit (1...256),
// byte 1 the chunk sizes the stream arrives in (1...16 bytes), the rest is the stream. The
// framer's lines must equal those of a plain model: split at LF, one CR before the LF
// dropped, a line of `limit` or more bytes (or an unterminated rest that long) refused.
import MotionProtocol

/// What the framer should return after each chunk: the model of its contract.
struct Model {
    let limit: Int
    var buffer: [UInt8] = []

    /// The lines completed by `chunk`, and whether the stream is then refused.
    mutating func feed(_ chunk: ArraySlice<UInt8>) -> (lines: [[UInt8]], tooLong: Bool) {
        buffer += chunk
        var lines: [[UInt8]] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            if line.count >= limit { return (lines, true) }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            lines.append(line)
            buffer.removeFirst(newline + 1)
        }
        return (lines, buffer.count >= limit)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFramer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 2 else { return 0 }
    let limit = Int(input[0]) + 1
    let chunkSize = Int(input[1] % 16) + 1
    let stream = input[2...]
    var framer = LineFramer(limit: limit)
    var model = Model(limit: limit)
    var offset = stream.startIndex
    while offset < stream.endIndex {
        let chunk = stream[offset..<min(offset + chunkSize, stream.endIndex)]
        offset = chunk.endIndex
        framer.append(chunk)
        let expected = model.feed(chunk)
        var lines: [[UInt8]] = []
        var tooLong = false
        do {
            while let line = try framer.nextLine() { lines.append(Array(line)) }
        } catch {
            tooLong = true
        }
        if lines != expected.lines || tooLong != expected.tooLong {
            fatalError("LineFramer(limit: \(limit)) after \(offset - stream.startIndex) bytes: lines \(lines), refused \(tooLong); expected \(expected.lines), refused \(expected.tooLong)")
        }
        if tooLong { break }
        if framer.buffered != model.buffer.count {
            fatalError("LineFramer buffers \(framer.buffered) bytes, expected \(model.buffer.count)")
        }
    }
    return 0
}
