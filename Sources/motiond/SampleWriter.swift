import Foundation
import MotionCore
import MotionIIO

/// Writes source events and device motion to standard output, one line each: readable text or
/// JSON lines in the socket protocol's shapes (`{"type":"accelerometer","timestamp":…,
/// "acceleration":{…}}`, `{"type":"deviceMotion",…}`).
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
        return "{\"type\":\"\(stream)\",\"timestamp\":\(number(sample.timestamp)),\"\(field)\":\(object(sample.vector))}"
    }

    /// Device motion in the protocol's shape; the attitude also carries roll, pitch and yaw
    /// (radians) and the line names its frame.
    static func json(_ motion: DeviceMotion) -> String {
        let q = motion.attitude.quaternion
        let a = motion.attitude
        return "{\"type\":\"deviceMotion\",\"timestamp\":\(number(motion.timestamp)),\"frame\":\"\(motion.referenceFrame)\","
            + "\"attitude\":{\"quaternion\":{\"w\":\(number(q.w)),\"x\":\(number(q.x)),\"y\":\(number(q.y)),\"z\":\(number(q.z))},"
            + "\"roll\":\(number(a.roll)),\"pitch\":\(number(a.pitch)),\"yaw\":\(number(a.yaw))},"
            + "\"rotationRate\":\(object(motion.rotationRate.vector)),\"gravity\":\(object(motion.gravity.vector)),"
            + "\"userAcceleration\":\(object(motion.userAcceleration.vector)),"
            + "\"magneticField\":{\"field\":\(object(motion.magneticField.field.vector)),\"accuracy\":\"\(motion.magneticField.accuracy)\"},"
            + "\"heading\":\(number(motion.heading))}"
    }

    /// Device motion for people: Euler angles in degrees, gravity and user acceleration in G.
    static func text(_ motion: DeviceMotion) -> String {
        let a = motion.attitude, g = motion.gravity.vector, u = motion.userAcceleration.vector
        let degrees = 180 / Double.pi
        let heading = motion.heading >= 0 ? String(format: " heading=%5.1f°", motion.heading) : ""
        return String(format: "%14.6f  roll=%+7.2f° pitch=%+7.2f° yaw=%+7.2f°  gravity=(%+.3f %+.3f %+.3f) user=(%+.3f %+.3f %+.3f) G",
                      motion.timestamp, a.roll * degrees, a.pitch * degrees, a.yaw * degrees, g.x, g.y, g.z, u.x, u.y, u.z)
            + heading + "  magnetometer \(motion.magneticField.accuracy)"
    }

    static func object(_ v: Vector3) -> String {
        "{\"x\":\(number(v.x)),\"y\":\(number(v.y)),\"z\":\(number(v.z))}"
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
