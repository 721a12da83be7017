import Testing
@testable import MotionDBus

@Suite("SensorProxyNews")
struct SensorProxyNewsTests {
    @Test("a changed state is news; the same state again with a reading already seen is not; a first reading is")
    func changes() {
        var news = SensorProxyNews()
        func take(_ state: SensorProxyState, readings: Set<ProxySensor>) -> Bool { news.take(state, readings: readings) }
        var state = SensorProxyState()
        state.hasAmbientLight = true
        #expect(take(state, readings: []))
        #expect(!take(state, readings: []))
        // The first light reading answers waiting claims: news, with an unchanged state too.
        #expect(take(state, readings: [.light]))
        // A light reading every 0.8 s, the level unchanged: nothing for the face.
        #expect(!take(state, readings: [.light]))
        state.lightLevel = 120
        #expect(take(state, readings: [.light]))
        #expect(!take(state, readings: [.light]))
        // Another sensor's first reading.
        #expect(take(state, readings: [.light, .accelerometer]))
    }

    @Test("once the face stops reading a sensor, its next reading is news again (a new claim waits for it)")
    func stopped() {
        var news = SensorProxyNews()
        func take(_ state: SensorProxyState, readings: Set<ProxySensor>) -> Bool { news.take(state, readings: readings) }
        let state = SensorProxyState()
        #expect(take(state, readings: [.light]))
        #expect(!take(state, readings: [.light]))
        news.stopped([.light])
        #expect(take(state, readings: [.light]))
        news.stopped(ProxySensor.allCases)
        #expect(take(state, readings: [.light]))
    }
}
