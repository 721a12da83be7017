import Foundation
import MotionCore
import MotionIIO

/// Writes source events to standard output, one line each: readable text or JSON lines in the
/// socket protocol's sample shapes (`{"type":"accelerometer","timestamp":…,"acceleration":{…}}`).
struct SampleWriter {
    var json: Bool

    func line(for event: SourceEvent) -> String {
        switch event {
        case .sample(let sample):
            return json ? Self.json(sample) : Self.text(sample)
        case .availability(let kind, let status):
            if json {
                var fields = "\"type\":\"availability\",\"sensor\":\"\(kind.rawValue)\",\"available\":\(status.isAvailable),\"reason\":\(Self.quoted(status.reason))"
                if let mode = status.mode { fields += ",\"mode\":\"\(mode.rawValue)\"" }
                return "{\(fields)}"
            }
            return "# \(kind) \(status.isAvailable ? "available" : "unavailable"): \(status.reason)"
        }
    }

    /// Wire names of the sample streams and their vector fields (DESIGN.md).
    static func wire(_ kind: SensorKind) -> (stream: String, field: String) {
        switch kind {
        case .accelerometer: return ("accelerometer", "acceleration")
        case .gyroscope: return ("gyro", "rotationRate")
        case .magnetometer: return ("magnetometer", "magneticField")
        }
    }

    static func json(_ sample: Sample) -> String {
        let (stream, field) = wire(sample.kind)
        let v = sample.vector
        return "{\"type\":\"\(stream)\",\"timestamp\":\(number(sample.timestamp)),\"\(field)\":{\"x\":\(number(v.x)),\"y\":\(number(v.y)),\"z\":\(number(v.z))}}"
    }

    static func text(_ sample: Sample) -> String {
        let v = sample.vector
        let kind = sample.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)
        return String(format: "%14.6f  %@ x=%+9.4f y=%+9.4f z=%+9.4f %@", sample.timestamp, kind, v.x, v.y, v.z, sample.kind.unit)
    }

    /// JSON number text; non-finite values (which JSON cannot carry) become null.
    static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
