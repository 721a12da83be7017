import Foundation
import Testing
import MotionCore
import MotionProtocol

/// Partial JSON objects applied over complete defaults (a subscription's detector options):
/// named keys replace, nested objects merge key by key, unknown keys are ignored, and a value
/// of the wrong type is refused naming its key path.
@Suite("Overlay")
struct OverlayTests {
    /// `json` (an object, as a client sends it) applied over the default detector parameters.
    static func detectors(_ json: String) throws(ProtocolError) -> DetectorConfiguration {
        guard case .object(let object) = try? JSONValue.parse(Array(json.utf8)) else { return DetectorConfiguration() }
        return try Overlay.apply(object, to: DetectorConfiguration(), path: "detectors")
    }

    @Test("a partial nested object changes only its keys and keeps every other default")
    func partialNestedObject() throws {
        let applied = try Self.detectors(#"{"shake":{"threshold":1.5,"quietTime":0.4}}"#)
        var expected = DetectorConfiguration()
        expected.shake.threshold = 1.5
        expected.shake.quietTime = 0.4
        #expect(applied == expected)
        #expect(applied.shake.reversalWindow == ShakeDetector.Parameters().reversalWindow)
        #expect(applied.orientation == OrientationDetector.Parameters())
    }

    @Test("top-level values and several nested objects apply together")
    func severalKeys() throws {
        let applied = try Self.detectors(#"{"hardAcceleration":0.8,"orientation":{"settleTime":0.25},"shake":{"requiredReversals":3}}"#)
        var expected = DetectorConfiguration()
        expected.hardAcceleration = 0.8
        expected.orientation.settleTime = 0.25
        expected.shake.requiredReversals = 3
        #expect(applied == expected)
    }

    @Test("keys the defaults do not have are ignored, at any depth")
    func unknownKeys() throws {
        #expect(try Self.detectors(#"{"sensitivity":"high","shake":{"axis":"x"}}"#) == DetectorConfiguration())
    }

    @Test("an empty object gives the defaults")
    func emptyObject() throws {
        #expect(try Self.detectors("{}") == DetectorConfiguration())
    }

    @Test("a value of the wrong type is refused with its key path", arguments: [
        (#"{"shake":{"threshold":"high"}}"#, "detectors.shake.threshold"),
        (#"{"shake":{"requiredReversals":true}}"#, "detectors.shake.requiredReversals"),
        (#"{"hardAcceleration":[0.5]}"#, "detectors.hardAcceleration"),
        (#"{"tap":3}"#, "detectors.tap: expected an object"),
        (#"{"orientation":{"settleTime":null}}"#, "detectors.orientation.settleTime"),
    ])
    func wrongType(json: String, path: String) {
        do {
            _ = try Self.detectors(json)
            Issue.record("\(json) was accepted")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains(path), "\(error.message)")
        }
    }

    @Test("a fractional number for an integer parameter is refused with its key path")
    func fractionalInteger() throws {
        do {
            _ = try Self.detectors(#"{"shake":{"requiredReversals":2.5}}"#)
            Issue.record("2.5 reversals were accepted")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("detectors.shake.requiredReversals"), "\(error.message)")
        }
    }
}

/// Detector options a client sends are checked against each parameter's documented range, the
/// same check the configuration file's `[detectors]` gets.
@Suite("Detector options: ranges")
struct DetectorOptionsTests {
    /// `{"shake":{"threshold":value}}` for the range's path `shake.threshold`.
    static func options(_ range: DetectorConfiguration.Range, _ value: Double) -> [String: JSONValue] {
        range.path.split(separator: ".").reversed().reduce(JSONValue.number(value)) { inner, key in .object([String(key): inner]) }.objectValue
    }

    @Test("every parameter: its bounds accepted or refused as documented, a value outside refused naming its key path")
    func everyRange() throws {
        #expect(!DetectorConfiguration.ranges.isEmpty)
        #expect(DetectorConfiguration().problem == nil)
        for range in DetectorConfiguration.ranges {
            let middle = (range.lower + range.upper) / 2
            #expect(throws: Never.self) { try DetectorConfiguration().overlaid(with: Self.options(range, range.upper)) }
            #expect(throws: Never.self) { try DetectorConfiguration().overlaid(with: Self.options(range, range.unit.isEmpty ? middle.rounded(.down) : middle)) }
            if range.lowerIncluded {
                #expect(throws: Never.self) { try DetectorConfiguration().overlaid(with: Self.options(range, range.lower)) }
            }
            for value in [range.upper + 1, range.lower - 1, -9e18] + (range.lowerIncluded ? [] : [range.lower]) {
                let error = try #require(throws: ProtocolError.self, "\(range.path) = \(value)") {
                    try DetectorConfiguration().overlaid(with: Self.options(range, value))
                }
                #expect(error.code == .invalidValue)
                #expect(error.message.hasPrefix("detectors.\(range.path): expected \(range.text), got "), "\(error.message)")
            }
        }
    }

    @Test("the ranges cover every parameter")
    func everyParameter() throws {
        guard case .object(let fields) = try JSONValue.parse(Array(String(decoding: try JSONEncoder().encode(DetectorConfiguration()), as: UTF8.self).utf8)) else {
            Issue.record("not an object")
            return
        }
        let paths = fields.flatMap { key, value -> [String] in
            guard case .object(let nested) = value else { return [key] }
            return nested.keys.map { "\(key).\($0)" }
        }
        #expect(Set(paths) == Set(DetectorConfiguration.ranges.map(\.path)))
        #expect(paths.count == DetectorConfiguration.ranges.count)
    }
}

private extension JSONValue {
    var objectValue: [String: JSONValue] {
        guard case .object(let object) = self else { return [:] }
        return object
    }
}
