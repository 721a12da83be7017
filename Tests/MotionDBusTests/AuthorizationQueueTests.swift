import Testing
@testable import MotionDBus

/// polkit checks bounded per client and in all, served in turn; answers for clients that left
/// recognised; the bus's refusals make the queue ask fewer at once.
@Suite("AuthorizationQueue")
struct AuthorizationQueueTests {
    typealias Queue = AuthorizationQueue<Int>

    @Test("a client's checks beyond perClient wait, beyond waitingPerClient more are refused; another client is asked at once")
    func boundedPerClient() {
        var queue = Queue()
        let flood = (0..<(Queue.perClient + Queue.waitingPerClient + 3)).map { queue.admit($0, from: ":1.9") }
        #expect(flood == Array(repeating: .ask, count: Queue.perClient) + Array(repeating: .wait, count: Queue.waitingPerClient)
                + Array(repeating: .refuse, count: 3))
        #expect(queue.admit(100, from: ":1.2") == .ask, "the flood does not hold another client up")
        #expect(queue.asked == Queue.perClient + 1)
    }

    @Test("when the total limit is reached, waiting clients are served one after the other, not the biggest first")
    func servedInTurn() {
        var queue = Queue()
        var flooders = 0
        // Flooders take every slot and queue more.
        while queue.asked < queue.limit {
            let client = ":1.\(100 + flooders)"
            flooders += 1
            for call in 0..<(Queue.perClient + 2) { _ = queue.admit(call, from: client) }
        }
        #expect(queue.admit(7, from: ":1.2") == .wait, "no slot free")
        // Two answers come: the first waiting flooder, then the one that came later, in turn.
        #expect(queue.answered(":1.100") == true)
        #expect(queue.next()?.client == ":1.100")
        #expect(queue.next() == nil, "the limit is reached again")
        #expect(queue.answered(":1.101") == true)
        let served = queue.next()
        #expect(served?.client == ":1.101")
        // Each client's turn comes once per round: ":1.2" is served within one round.
        var rounds = 0
        var reached = false
        while !reached, rounds < flooders + 1 {
            rounds += 1
            _ = queue.answered(":1.\(100 + (rounds % flooders))")
            if let next = queue.next() { reached = next.client == ":1.2" }
        }
        #expect(reached, "served within one round of the others")
    }

    @Test("an answer for a client that left meanwhile is recognised; its waiting calls are dropped")
    func departed() {
        var queue = Queue()
        for call in 0..<(Queue.perClient + 2) { _ = queue.admit(call, from: ":1.5") }
        #expect(queue.departed(":1.5") == [Queue.perClient, Queue.perClient + 1], "the waiting ones are dropped")
        #expect(queue.next() == nil)
        for _ in 0..<Queue.perClient { #expect(queue.answered(":1.5") == false, "its answers are for nobody") }
        #expect(!queue.knows(":1.5") && queue.asked == 0, "forgotten once every answer came")
    }

    @Test("the bus refusing a check: it waits again first in line, fewer are asked at once")
    func busRefused() {
        var queue = Queue()
        for call in 0..<3 { #expect(queue.admit(call, from: ":1.\(call)") == .ask) }
        #expect(queue.busRefused(2, from: ":1.2") == true)
        #expect(queue.limit == 2 && queue.asked == 2, "as many as the bus still carried")
        #expect(queue.next() == nil, "the limit is reached")
        #expect(queue.admit(9, from: ":1.7") == .wait)
        #expect(queue.answered(":1.0") == true)
        #expect(queue.next()! == (2, ":1.2"), "the refused call first")
        #expect(queue.departed(":1.1").isEmpty)
        #expect(queue.busRefused(1, from: ":1.1") == false, "a refused call of a client that left is dropped")
    }
}
