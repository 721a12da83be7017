import Testing
import MotionCore

@Suite("Whitespace trimming")
struct WhitespaceTrimmingTests {
    /// What trimming by `Character` gives: the definition the ASCII byte path must match.
    static func byCharacter(_ text: String, newlines: Bool) -> String {
        let trim: (Character) -> Bool = { $0.isWhitespace && (newlines || !$0.isNewline) }
        guard let first = text.firstIndex(where: { !trim($0) }), let last = text.lastIndex(where: { !trim($0) }) else { return "" }
        return String(text[first...last])
    }

    @Test("ASCII is trimmed byte by byte exactly as by Character; other text by Character",
          arguments: ["256\n", " -340 \r\n", "\t\u{0B}\u{0C}x y\u{0D}", "", " \n ", "\u{1C}1\u{1F}", "a\u{85}", "\u{A0}é \u{2028}", "\n\u{301}x"])
    func matchesCharacters(text: String) {
        for newlines in [true, false] {
            #expect(text.trimmingWhitespace(newlines: newlines) == Self.byCharacter(text, newlines: newlines))
            #expect(text.dropFirst(0).trimmingWhitespace(newlines: newlines) == Self.byCharacter(text, newlines: newlines), "a Substring")
        }
    }
}
