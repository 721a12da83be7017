// libFuzzer target: one request line as a client sends it (docs/PROTOCOL.md), through
// ClientRequest(line:) (and so JSONValue, JSONFields and Overlay for detector options).
// Beyond "never crashes", what a request parses to must survive the trip a client makes:
// its `json` parses back to the same request.
import MotionProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    let id = ClientRequest.requestID(inLine: line)
    guard let request = try? ClientRequest(line: line) else { return 0 }
    if request.id != id { fatalError("requestID(inLine:) \(String(describing: id)) differs from the parsed request's id \(String(describing: request.id))") }
    let json = request.json
    let again: ClientRequest
    do {
        again = try ClientRequest(line: Array(json.utf8))
    } catch {
        fatalError("the request's own json does not parse: \(error)\njson: \(json)")
    }
    if again != request { fatalError("json round trip changed the request\nfirst:  \(request)\nsecond: \(again)\njson: \(json)") }
    return 0
}
