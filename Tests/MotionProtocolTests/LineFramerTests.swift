import Testing
import MotionProtocol

/// Splitting a byte stream into lines: however the bytes arrive, CRLF endings, empty lines, and
/// the length limit (bytes including the newline), enforced before a newline ever arrives.
@Suite("LineFramer")
struct LineFramerTests {
    /// Every complete line buffered now, as text.
    static func lines(_ framer: inout LineFramer) throws -> [String] {
        var lines: [String] = []
        while let line = try framer.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
        return lines
    }

    @Test("a line split across appends comes out whole, once its newline arrives")
    func splitLine() throws {
        var framer = LineFramer()
        framer.append(#"{"op":"sta"#.utf8)
        #expect(try Self.lines(&framer).isEmpty)
        framer.append(#"tus","id":1}"#.utf8)
        #expect(try Self.lines(&framer).isEmpty)
        framer.append("\n".utf8)
        #expect(try Self.lines(&framer) == [#"{"op":"status","id":1}"#])
        #expect(framer.buffered == 0)
    }

    @Test("lines fed one byte at a time")
    func byteByByte() throws {
        var framer = LineFramer(limit: 16)
        var lines: [String] = []
        for byte in "first\nsecond\r\nthird\n".utf8 {
            framer.append([byte])
            lines += try Self.lines(&framer)
        }
        #expect(lines == ["first", "second", "third"])
    }

    @Test("several lines in one append, and the unterminated rest kept for later")
    func severalLines() throws {
        var framer = LineFramer()
        framer.append("one\ntwo\nthree\nfou".utf8)
        #expect(try Self.lines(&framer) == ["one", "two", "three"])
        #expect(framer.buffered == 3)
        framer.append("r\n".utf8)
        #expect(try Self.lines(&framer) == ["four"])
    }

    @Test("a CR before the LF is dropped; a CR elsewhere is kept")
    func crlf() throws {
        var framer = LineFramer()
        framer.append("dos\r\nunix\nmid\rdle\r\n\r\n".utf8)
        #expect(try Self.lines(&framer) == ["dos", "unix", "mid\rdle", ""])
    }

    @Test("empty lines are lines")
    func emptyLines() throws {
        var framer = LineFramer()
        framer.append("\n\nx\n\n".utf8)
        #expect(try Self.lines(&framer) == ["", "", "x", ""])
    }

    @Test("a line of limit − 1 bytes (limit with its newline) is accepted")
    func longestLine() throws {
        var framer = LineFramer(limit: 16)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 15) + [UInt8(ascii: "\n")])
        #expect(try Self.lines(&framer) == [String(repeating: "a", count: 15)])
    }

    @Test("the default limit is Wire.maximumLineLength, newline included")
    func defaultLimit() throws {
        var framer = LineFramer()
        #expect(framer.limit == Wire.maximumLineLength)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: Wire.maximumLineLength - 1) + [UInt8(ascii: "\n")])
        #expect(try framer.nextLine()?.count == Wire.maximumLineLength - 1)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: Wire.maximumLineLength) + [UInt8(ascii: "\n")])
        #expect(throws: LineFramer.Failure.lineTooLong) { try framer.nextLine() }
    }

    @Test("a line of limit bytes before its newline is too long")
    func tooLongWithNewline() throws {
        var framer = LineFramer(limit: 16)
        framer.append("ok\n".utf8)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 16) + [UInt8(ascii: "\n")])
        #expect(try framer.nextLine().map { Array($0) } == Array("ok".utf8))
        #expect(throws: LineFramer.Failure.lineTooLong) { try framer.nextLine() }
    }

    @Test("a line longer than the limit is refused before its newline arrives")
    func tooLongWithoutNewline() throws {
        var framer = LineFramer(limit: 16)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 10))
        #expect(try framer.nextLine() == nil)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 7))
        #expect(throws: LineFramer.Failure.lineTooLong) { try framer.nextLine() }
    }

    @Test("the limit counts from the start of the current line, not of the buffer")
    func limitPerLine() throws {
        var framer = LineFramer(limit: 8)
        for _ in 0..<50 {
            framer.append("1234567\n".utf8)
            #expect(try Self.lines(&framer) == ["1234567"])
        }
        framer.append("1234567\n12345".utf8)
        framer.append("67\n".utf8)
        #expect(try Self.lines(&framer) == ["1234567", "1234567"])
    }
}
