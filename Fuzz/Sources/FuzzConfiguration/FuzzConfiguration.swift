// libFuzzer target: the configuration file reader, ConfigurationFile.parse (TOMLKit's toml++
// underneath, then TOMLKeyLines and the validation into DaemonConfiguration). Input that is
// not UTF-8 is skipped, as ConfigurationFile.load refuses it before parsing.
import MotionDaemon

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    if hitsOpenTOMLFinding(bytes) { return 0 }
    do {
        _ = try ConfigurationFile.parse(text, file: "fuzz.toml")
    } catch {
        // Every error is a line for the log that starts with the file's name.
        if !error.description.hasPrefix("fuzz.toml") { fatalError("error without the file name: \(error.description)") }
    }
    return 0
}

/// An open finding (Fuzz/README.md, "Open findings"): a table header whose key starts with
/// anything but a bare-key character, a quote or `]` (`[.`, `[[=`, `[ #`) fails toml++'s
/// `assert(is_bare_key_character(*cp) || is_string_delimiter(*cp))` in parse_key() and aborts
/// the process (SwiftPM builds TOMLKit's C++ without NDEBUG in release too, so motiond itself
/// aborts on such a file). Such inputs are skipped so the fuzzer can look for other bugs;
/// Corpus/FuzzConfiguration/finding-toml-header-* reproduce it. Delete this filter once
/// ConfigurationFile refuses these headers itself (or TOMLKit is fixed).
func hitsOpenTOMLFinding(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    func startsKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }
    // toml++ skips a byte order mark before the first line.
    var index = text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var atLineStart = true
    while index < text.count {
        let byte = text[index]
        if byte == UInt8(ascii: "\n") { atLineStart = true; index += 1; continue }
        if atLineStart && isBlank(byte) { index += 1; continue }
        if atLineStart && byte == UInt8(ascii: "[") {
            var i = index + 1
            while i < text.count && isBlank(text[i]) { i += 1 }
            if i < text.count && text[i] == UInt8(ascii: "[") {
                i += 1
                while i < text.count && isBlank(text[i]) { i += 1 }
            }
            if i < text.count && !startsKey(text[i]) { return true }
        }
        atLineStart = false
        index += 1
    }
    return false
}
