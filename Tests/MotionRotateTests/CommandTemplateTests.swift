import Testing

@testable import MotionRotate

/// `--command` templates: split like a shell would without one, placeholders filled inside each
/// argument, mistakes refused before anything runs.
@Suite("Command templates and shell words")
struct CommandTemplateTests {
    @Test("placeholders are filled inside arguments; a value with spaces stays one argument")
    func filled() throws {
        let template = try CommandTemplate("my-rotate --output {output} '{transform} degrees' {rotation} --name={orientation}")
        let rotation = try #require(ScreenRotation(.landscapeRight))
        #expect(template.command(for: rotation, output: "Built in 1")
            == ["my-rotate", "--output", "Built in 1", "90 degrees", "left", "--name=landscapeRight"])
        #expect(template.usesOutput)
        #expect(try !CommandTemplate("xrandr -o {rotation}").usesOutput)
    }

    @Test("braced text that is no placeholder (JSON) is left alone")
    func json() throws {
        let template = try CommandTemplate(#"notify '{"n":1}' '{"to": "{rotation}"}'"#)
        #expect(template.command(for: try #require(ScreenRotation(.portrait)), output: "")
            == ["notify", #"{"n":1}"#, #"{"to": "normal"}"#])
    }

    @Test("an unknown placeholder, an empty template and an open quote are refused, saying why")
    func refused() {
        let unknown = #expect(throws: CommandTemplate.Invalid.self) { try CommandTemplate("rotate {screen}") }
        #expect(unknown?.description.hasPrefix("unknown placeholder {screen} in rotate {screen}; known: {output} {transform}") == true)
        let empty = #expect(throws: CommandTemplate.Invalid.self) { try CommandTemplate("  ") }
        #expect(empty?.description == "the command template is empty")
        let open = #expect(throws: CommandTemplate.Invalid.self) { try CommandTemplate("rotate 'left") }
        #expect(open?.description == "unterminated ' quote in rotate 'left")
    }

    @Test("quoting for display: plain words as they are, others single-quoted so a shell reads them back")
    func quoted() throws {
        let words = ["xinput", "set-prop", "Touch Screen", "it's", ""]
        let text = ShellWords.quoted(words)
        #expect(text == #"xinput set-prop 'Touch Screen' 'it'\''s' ''"#)
        #expect(try ShellWords.split(text) == words)
    }
}
