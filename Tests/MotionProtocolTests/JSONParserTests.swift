import MotionProtocol
import Testing

/// The exact JSON the protocol accepts (docs/PROTOCOL.md §1): RFC 8259's grammar, no more and
/// no less, with duplicate keys, a byte-order mark and numbers beyond a Double refused, and a
/// lone surrogate escape read as U+FFFD.
@Suite("JSON accepted on the wire")
struct JSONParserTests {
    @Test("refused as malformedJSON, with a message saying why", arguments: [
        (#"{"op":"status",}"#, "expected a key"),
        (#"{"op":"status","id":1,}"#, "expected a key"),
        (#"{"op":"subscribe","stream":"shake","detectors":{"shake":{"threshold":1.5,}}}"#, "expected a key"),
        (#"{"op":"status","x":[1,2,]}"#, "expected a value"),
        (#"{"op":"status","id":6,"id":1e400}"#, #"duplicate key "id""#),
        (#"{"op":"status","id":6,"id":7}"#, #"duplicate key "id""#),
        (#"{"op":"subscribe","stream":"shake","detectors":{"shake":{"threshold":1.5,"threshold":-1}}}"#, #"duplicate key "threshold""#),
        ("\u{FEFF}{\"op\":\"status\"}", "byte-order mark"),
        (#"{"op":"status","x":1e400}"#, "out of range"),
        (#"{"op":"status","x":-1e309}"#, "out of range"),
        (#"{"op":"status","id":01}"#, "leading zeros"),
        (#"{"op":"status","id":+1}"#, "expected a value"),
        (#"{"op":"status","x":.5}"#, "expected a value"),
        (#"{"op":"status","x":1.}"#, "expected a digit after '.'"),
        (#"{"op":"status","x":1e}"#, "exponent"),
        (#"{"op":"status","x":-}"#, "expected a digit"),
        (#"{"op":"status","x":Infinity}"#, "expected a value"),
        (#"{'op':'status'}"#, "expected a key"),
        (#"{"op":"status"} // status"#, "after the value"),
        ("{\"op\":\"status\"}\u{0}", "after the value"),
        ("{\"op\":\"status\"}\u{0}{\"op\":\"publish\"}", "after the value"),
        ("{\"op\":\"sta\ttus\"}", "control character"),
        (#"{"op":"status","x":"\x"}"#, "unknown escape"),
        (#"{"op":"status","x":"\u12"}"#, "hex digits"),
        (#"{"op":"status","x":tru}"#, "expected a value"),
        (#"{"op":"status""#, "expected ',' or '}'"),
        (#"{"op":"status","x":"abc}"#, "not closed"),
    ])
    func refused(line: String, reason: String) throws {
        let error = try #require(refusal(line))
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test("a string that is not UTF-8 is refused")
    func invalidUTF8() throws {
        let line = Array(#"{"op":"status","x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let error = try #require(throws: ProtocolError.self) { try ClientRequest(line: line) }
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains("UTF-8"), "\(error.message)")
    }

    @Test("a lone surrogate escape is read as U+FFFD, so an ignored field never refuses a line")
    func loneSurrogate() throws {
        #expect(try parse(#"{"op":"status","id":3,"note":"\ud800"}"#) == .status(id: 3))
        #expect(try parse(#"{"op":"status","note":"a\udc00b\ud800\u0041"}"#) == .status(id: nil))
        #expect(try JSONValue.parse(Array(#""a\ud800b""#.utf8)) == .string("a\u{FFFD}b"))
        #expect(try JSONValue.parse(Array(#""\udc00""#.utf8)) == .string("\u{FFFD}"))
        // A high surrogate followed by an escape that is not a low one: both stand alone.
        #expect(try JSONValue.parse(Array(#""\ud800\u00e9""#.utf8)) == .string("\u{FFFD}é"))
    }

    @Test("everything RFC 8259 allows is read")
    func accepted() throws {
        let text = " \t\r\n{\"s\":\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00é😀\",\"n\":[0,-0,12,-3.25,1e3,1E+2,2.5e-3,1e-400],"
            + "\"b\":[true,false,null],\"o\":{},\"a\":[],\"\":{\"k\":[{}]}} \r\n"
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value == [
            "s": "a\"\\/\u{8}\u{C}\n\r\té\u{1F600}é😀",
            "n": [0, -0.0, 12, -3.25, 1000, 100, 0.0025, 0],
            "b": [true, false, nil],
            "o": [:],
            "a": [],
            "": ["k": [[:]]],
        ])
        #expect(try JSONValue.parse(Array("1.7976931348623157e308".utf8)) == .number(.greatestFiniteMagnitude))
    }

    @Test("arrays and objects nest at most 64 deep")
    func depth() throws {
        func nested(_ depth: Int) -> String {
            #"{"op":"status","x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(try parse(nested(64)) == .status(id: nil))
        let error = try #require(refusal(nested(65)))
        #expect(error.code == .malformedJSON)
        #expect(error.message.contains("64"), "\(error.message)")
        // A line of nothing but brackets is refused, not a stack overflow.
        #expect(refusal(String(repeating: "[", count: 60_000))?.code == .malformedJSON)
        #expect(refusal(String(repeating: #"{"a":"#, count: 10_000))?.code == .malformedJSON)
    }

    @Test("the client reads the daemon's messages with the same rules")
    func serverMessages() throws {
        #expect(throws: ProtocolError.self) { try ServerMessage.parse(line: Array(#"{"type":"orientation","timestamp":1,"orientation":"portrait","orientation":"faceUp"}"#.utf8)) }
        #expect(throws: ProtocolError.self) { try ServerMessage.parse(line: Array(#"{"type":"orientation","timestamp":1,"orientation":"portrait",}"#.utf8)) }
        #expect(try ServerMessage.parse(line: Array(#"{"type":"orientation","timestamp":1,"orientation":"portrait"}"#.utf8)) != nil)
    }
}
