/// Shell-style words, without a shell: quoting argument vectors for display (`--dry-run`, logs)
/// so they can be pasted into one, and splitting a `--command` template into arguments.
enum ShellWords {
    /// Why a template could not be split.
    struct SplitError: Error, CustomStringConvertible {
        var description: String
    }

    /// Characters that need no quoting.
    private static let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")

    /// The words joined by spaces, each single-quoted unless it is plain.
    static func quoted(_ words: [String]) -> String {
        words.map { word in
            !word.isEmpty && word.allSatisfy(plain.contains) ? word : "'" + word.replacing("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// Splits at unquoted whitespace. Single quotes keep everything literally, double quotes keep
    /// whitespace and allow `\` escapes, and outside quotes `\` escapes the next character;
    /// `''` is an empty word. Nothing is expanded.
    static func split(_ text: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                word.append(character)
                escaped = false
            } else if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaped = true
                } else {
                    word.append(character)
                }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == "\\" {
                escaped = true
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if let open = quote { throw SplitError(description: "unterminated \(open) quote in \(text)") }
        if escaped { throw SplitError(description: "\(text) ends with a lone \\") }
        if inWord { words.append(word) }
        return words
    }
}
