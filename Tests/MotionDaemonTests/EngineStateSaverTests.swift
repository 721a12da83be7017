import Dispatch
import Glibc
import MotionCore
import Testing
@testable import MotionDaemon

/// The engine state is offered at most every offer interval (computed only then), and written
/// once more at exit after every offer before.
@Suite("EngineStateSaver")
struct EngineStateSaverTests {
    @Test("offers within the interval are not taken (the state is not even computed); one after it is written; save writes the last state")
    func offers() throws {
        let path = try scratchDirectory().path + "/state.json"
        let store = EngineStateStore(path: path, minimumInterval: 2, logger: LogRecorder().logger)
        var saver = EngineStateSaver(store: store, now: 100)
        #expect(saver.offerInterval == 2)
        var computed = 0
        var state = MotionEngine().persistentState
        state.gyroscopeBias = Vector3(0.01, 0, 0)
        saver.offer(now: 101) { computed += 1; return state }
        #expect(computed == 0)
        saver.offer(now: 102) { computed += 1; return state }
        #expect(computed == 1)
        saver.offer(now: 103) { computed += 1; return state }
        #expect(computed == 1)
        // `save` waits for what was offered before it, then writes its own state.
        state.gyroscopeBias = Vector3(0.02, 0, 0)
        saver.save(state)
        #expect(store.load()?.gyroscopeBias == Vector3(0.02, 0, 0))
    }

    @Test("an offer taken is written on the saver's queue: the offering thread returns while that queue is held, and the write follows when it runs")
    func offThread() throws {
        let path = try scratchDirectory().path + "/state.json"
        let store = EngineStateStore(path: path, minimumInterval: 0.5, logger: LogRecorder().logger)
        let queue = DispatchQueue(label: "test.state")
        var saver = EngineStateSaver(store: store, now: 0, queue: queue)
        var state = MotionEngine().persistentState
        state.gyroscopeBias = Vector3(0, 0.03, 0)
        queue.suspend()
        saver.offer(now: 1) { state }
        #expect(access(path, F_OK) != 0, "not written on the offering thread")
        queue.resume()
        queue.sync {}
        #expect(store.load()?.gyroscopeBias == Vector3(0, 0.03, 0))
    }
}
