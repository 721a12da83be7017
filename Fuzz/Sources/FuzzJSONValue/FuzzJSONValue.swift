// libFuzzer target: JSONValue.parse, the JSON reader under every protocol line. A parsed value
// must encode (JSONValue's Encodable side) and parse back to the same value.
import FoundationEssentials
import MotionProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONValue(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    let encoded: Data
    do {
        encoded = try JSONEncoder().encode(value)
    } catch {
        fatalError("a parsed value does not encode: \(error)\nvalue: \(value)")
    }
    let again: JSONValue
    do {
        again = try JSONValue.parse(encoded)
    } catch {
        fatalError("an encoded value does not parse: \(error)\njson: \(String(decoding: encoded, as: UTF8.self))")
    }
    if again != value { fatalError("round trip changed the value\nfirst:  \(value)\nsecond: \(again)") }
    return 0
}
