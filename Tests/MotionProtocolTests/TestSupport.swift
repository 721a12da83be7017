import Foundation
import MotionProtocol

// Shared helpers for the MotionProtocol tests: parsing request lines, and reading the JSON the
// protocol writes with Foundation's parser.

/// The request a line parses to.
func parse(_ line: String) throws(ProtocolError) -> ClientRequest {
    try ClientRequest(line: Array(line.utf8))
}

/// The error a line is refused with, nil when it parses.
func refusal(_ line: String) -> ProtocolError? {
    do {
        _ = try parse(line)
        return nil
    } catch {
        return error
    }
}

/// A line of JSON as Foundation parses it; nil when it is not a JSON object.
func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The value at a dotted key path (`"attitude.quaternion.w"`) of a parsed object.
func value(_ object: [String: Any]?, _ path: String) -> Any? {
    var current: Any? = object
    for key in path.split(separator: ".") {
        current = (current as? [String: Any])?[String(key)]
    }
    return current
}

/// A JSON `true`/`false` (Foundation would also turn the numbers 0 and 1 into a Bool).
func bool(_ value: Any?) -> Bool? {
    guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
    return number.boolValue
}

/// Whether a parsed JSON number is `expected`, to the last bits Foundation's parser may lose
/// (it does not always read the shortest round-trip text back to the same Double).
func isNumber(_ value: Any?, _ expected: Double) -> Bool {
    guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return false }
    return abs(number.doubleValue - expected) <= 1e-15 * max(1, abs(expected))
}
