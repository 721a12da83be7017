// libFuzzer target: the configuration file reader, ConfigurationFile.parse (TOMLKit's toml++
// underneath, then TOMLKeyLines and the validation into DaemonConfiguration). Input that is
// not UTF-8 is skipped, as ConfigurationFile.load refuses it before parsing.
//
// toml++ is built with NDEBUG here (the Makefile's FUZZ_BUILD), unlike in motiond: its
// assertions abort on malformed TOML (Fuzz/README.md, "Open findings"), which would stop every
// run at the same known failure instead of searching motiond's own configuration code.
import MotionConfiguration

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    do {
        _ = try ConfigurationFile.parse(text, file: "fuzz.toml")
    } catch {
        // Every error is a line for the log that starts with the file's name.
        if !error.description.hasPrefix("fuzz.toml") { fatalError("error without the file name: \(error.description)") }
    }
    return 0
}
