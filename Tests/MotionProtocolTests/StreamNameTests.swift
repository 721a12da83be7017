import Testing
import MotionProtocol

@Suite("StreamName")
struct StreamNameTests {
    @Test("equal and hashed by case: every stream is itself, and no two are alike")
    func equalityByCase() {
        for a in StreamName.allCases {
            for b in StreamName.allCases { #expect((a == b) == (a.rawValue == b.rawValue), "\(a) and \(b)") }
        }
        #expect(Set(StreamName.allCases).count == StreamName.allCases.count)
        #expect(Set(StreamName.allCases.map(\.hashValue)).count == StreamName.allCases.count)
    }
}
