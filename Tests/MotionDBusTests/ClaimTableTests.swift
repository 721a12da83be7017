import Testing
@testable import MotionDBus

/// Claims counted per bus client and sensor, as iio-sensor-proxy counts them.
@Suite("ClaimTable")
struct ClaimTableTests {
    @Test("the first claim starts a sensor, the last release stops it; a client's claims are counted")
    func counting() {
        var table = ClaimTable()
        let starts = [table.claim(.accelerometer, by: ":1.1"), table.claim(.accelerometer, by: ":1.1"), table.claim(.accelerometer, by: ":1.2")]
        #expect(starts == [true, false, false], "only the first claim starts it, a client may claim twice")
        #expect(table.claimants(of: .accelerometer) == [":1.1", ":1.2"])
        let stops = [table.release(.accelerometer, by: ":1.1"), table.release(.accelerometer, by: ":1.1"),
                     table.release(.accelerometer, by: ":1.3"), table.release(.accelerometer, by: ":1.2")]
        #expect(stops == [false, false, false, true], "two releases for two claims; an unclaimed release does nothing; the last stops it")
        #expect(!table.isClaimed(.accelerometer))
    }

    @Test("a client that leaves releases everything; the sensors it was the last claimant of stop")
    func leaving() {
        var table = ClaimTable()
        _ = table.claim(.accelerometer, by: ":1.1")
        _ = table.claim(.compass, by: ":1.1")
        _ = table.claim(.compass, by: ":1.2")
        #expect(table.holdsAny(":1.1"))
        let ended = table.remove(":1.1")
        #expect(ended == [.accelerometer])
        #expect(!table.holdsAny(":1.1") && table.claimants(of: .compass) == [":1.2"])
        let cleared = [table.clear(.compass), table.clear(.compass)]
        #expect(cleared == [true, false])
    }

    @Test("methods name their sensor; properties belong to one sensor; only changed ones are news")
    func namesAndChanges() {
        #expect(ProxyMethod("ClaimAccelerometer") == ProxyMethod("ClaimAccelerometer"))
        #expect(ProxyMethod("ReleaseCompass")?.sensor == .compass && ProxyMethod("ReleaseCompass")?.claims == false)
        #expect(ProxyMethod("ClaimLight")?.claims == true && ProxyMethod("Frobnicate") == nil)
        var state = SensorProxyState()
        let old = state
        state.accelerometerOrientation = "left-up"
        state.compassHeading = 12.5
        #expect(state.changed(.accelerometer, from: old) == ["AccelerometerOrientation"])
        #expect(state.changed(.compass, from: old) == ["CompassHeading"])
        #expect(state.changed(.light, from: old).isEmpty)
        #expect(state.value(of: "LightLevelUnit") == .string("lux") && state.value(of: "Nope") == nil)
    }
}
