import Testing
@testable import MotionCore

@Suite("BoundedHistory")
struct BoundedHistoryTests {
    @Test("keeps the newest values up to its capacity, the oldest overwritten first; removeAll forgets")
    func newest() {
        var history = BoundedHistory<Int>(capacity: 3)
        #expect(history.isEmpty)
        for value in 1...2 { history.append(value) }
        #expect(Array(history) == [1, 2])
        for value in 3...5 { history.append(value) }
        #expect(history.count == 3 && Set(history) == [3, 4, 5])
        history.append(6)
        #expect(Set(history) == [4, 5, 6] && history.reduce(0, +) == 15)
        history.removeAll()
        #expect(history.isEmpty)
        history.append(7)
        #expect(Array(history) == [7])
    }
}
