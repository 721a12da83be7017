import Testing
import MotionCore
import MotionProtocol

/// The enums that key the per-sample tables hash and compare by case (not by their raw names,
/// as the standard library's defaults for raw-valued enums would): every case must still be
/// equal to itself alone.
@Suite("Enum keys hashed by case")
struct CaseKeyTests {
    private func expectByCase<Key: CaseIterable & Hashable & RawRepresentable>(_: Key.Type) where Key.RawValue == String {
        for a in Key.allCases {
            for b in Key.allCases { #expect((a == b) == (a.rawValue == b.rawValue), "\(a.rawValue) and \(b.rawValue)") }
        }
        #expect(Set(Key.allCases).count == Key.allCases.count)
        #expect(Set(Key.allCases.map(\.hashValue)).count == Key.allCases.count)
    }

    @Test("SensorKind") func sensorKind() { expectByCase(SensorKind.self) }
    @Test("StreamName") func streamName() { expectByCase(StreamName.self) }
}
