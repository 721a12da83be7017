import Foundation
import MotionCore
import MotionProtocol
import Testing

/// `get`'s `age` (docs/PROTOCOL.md §3.3): written beside the sample when known, read back, and a
/// reply without it (a daemon before 0.19.0, or a value without a timestamp) still read.
@Suite("get reply age")
struct GetReplyAgeTests {
    static let sample = ServerMessage.sample(Sample(kind: .accelerometer, timestamp: 812.3051, vector: Vector3(0.01, -0.02, -1)))

    @Test("the age is a number beside the sample, and reads back")
    func roundTrip() throws {
        let line = ServerMessage.reply(id: 2, .success(.value(Self.sample, age: 61.25))).line
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["age"] as? Double == 61.25)
        #expect(try ServerMessage.parse(line: Array(line.utf8)) == .reply(id: 2, .success(.value(Self.sample, age: 61.25))))
    }

    @Test("a reply without an age is read as one without")
    func absent() throws {
        let line = ServerMessage.reply(id: 2, .success(.value(Self.sample))).line
        #expect(!line.contains("age"))
        #expect(try ServerMessage.parse(line: Array(line.utf8)) == .reply(id: 2, .success(.value(Self.sample, age: nil))))
    }
}
