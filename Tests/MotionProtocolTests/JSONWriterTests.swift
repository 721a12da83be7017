import Foundation
import Testing
import MotionCore
import MotionProtocol

/// The hand-written JSON of every daemon message: fields in the order written, strings escaped
/// so any text survives, non-finite numbers as `null`, and text Foundation's parser reads back.
@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("fields of every kind, in the order written")
    func fields() {
        var writer = JSONWriter()
        writer.field("s", "text")
        writer.field("d", 1.5)
        writer.field("i", 42 as Int?)
        writer.field("none", nil as Int?)
        writer.field("yes", true)
        writer.field("no", false)
        writer.field("v", Vector3(1, -2.5, 0))
        writer.raw("list", JSONWriter.array(["a", "b"]))
        #expect(writer.finished
            == #"{"s":"text","d":1.5,"i":42,"none":null,"yes":true,"no":false,"v":{"x":1.0,"y":-2.5,"z":0.0},"list":["a","b"]}"#)
        let object = jsonObject(writer.finished)
        #expect(isNumber(value(object, "v.y"), -2.5))
        #expect(value(object, "none") is NSNull)
        #expect(bool(value(object, "yes")) == true)
    }

    @Test("an empty writer is an empty object")
    func empty() {
        #expect(JSONWriter().finished == "{}")
    }

    @Test("quotes, backslashes and the usual control characters get their short escapes")
    func shortEscapes() {
        #expect(JSONWriter.quoted("say \"hi\"\\ok\nnext\rline\tcell") == #""say \"hi\"\\ok\nnext\rline\tcell""#)
    }

    @Test("other control characters are written as \\u00XX")
    func controlCharacters() {
        #expect(JSONWriter.quoted("\u{0}\u{1}\u{8}\u{B}\u{C}\u{1F}") == #""\u0000\u0001\u0008\u000b\u000c\u001f""#)
    }

    @Test("non-ASCII text is kept as it is, not escaped")
    func nonASCII() {
        #expect(JSONWriter.quoted("Zürich → 北 😀") == "\"Zürich → 北 😀\"")
    }

    @Test("every string parses back to itself", arguments: [
        "", "plain", "a \"quoted\" \\ path\\to", "two\nlines\r\n", "\u{0}\u{7}\u{1B}[0m\u{7F}", "Zürich → 北 😀", "\u{2028}\u{2029}",
    ])
    func stringsRoundTrip(text: String) {
        var writer = JSONWriter()
        writer.field("text", text)
        #expect(value(jsonObject(writer.finished), "text") as? String == text)
    }

    @Test("NaN and infinities become null, also inside vectors")
    func nonFiniteNumbers() {
        #expect(JSONWriter.number(.nan) == "null")
        #expect(JSONWriter.number(.infinity) == "null")
        #expect(JSONWriter.number(-.infinity) == "null")
        var writer = JSONWriter()
        writer.field("nan", Double.nan)
        writer.field("inf", -Double.infinity)
        writer.field("v", Vector3(.nan, 1, .infinity))
        let object = jsonObject(writer.finished)
        #expect(object != nil, "\(writer.finished)")
        #expect(value(object, "nan") is NSNull)
        #expect(value(object, "inf") is NSNull)
        #expect(value(object, "v.x") is NSNull)
        #expect(isNumber(value(object, "v.y"), 1))
        #expect(value(object, "v.z") is NSNull)
    }

    @Test("finite numbers of any size are JSON numbers whose text reads back exactly",
          arguments: [0.0, -0.0, 1e-9, 812.3051, 1.0 / 3.0, -0.10602051106179562, -123456789.125, 1e300, .leastNonzeroMagnitude])
    func numbersRoundTrip(number: Double) {
        #expect(Double(JSONWriter.number(number)) == number)
        var writer = JSONWriter()
        writer.field("n", number)
        #expect(isNumber(value(jsonObject(writer.finished), "n"), number))
    }

    @Test("an array of strings escapes each")
    func array() {
        #expect(JSONWriter.array([]) == "[]")
        #expect(JSONWriter.array(["a", "b\"c"]) == #"["a","b\"c"]"#)
    }
}
