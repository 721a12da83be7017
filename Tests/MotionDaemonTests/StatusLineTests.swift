import MotionCore
import MotionIIO
import Testing
@testable import MotionDaemon

/// What `systemctl status` shows, and that it is sent only when it changes.
@Suite("StatusLine")
struct StatusLineTests {
    @Test("clients, each sensor read with its rest interval and batching, and the missing sensors")
    func text() throws {
        var request = try SourceRequest([.accelerometer: 0.02, .gyroscope: 0.01, .light: 0.1])
        request.wakeIntervals = [.accelerometer: 0.35, .light: 0.8]
        request.latencies = [.gyroscope: 1]
        #expect(StatusLine.text(clients: 1, reading: request, missing: [.magnetometer])
                == "1 client; accelerometer every 20 ms (at rest: read every 350 ms), gyroscope every 10 ms (batched: may come 1000 ms late), light every 800 ms; no magnetometer")
        #expect(StatusLine.text(clients: 0, reading: .none, missing: []) == "0 clients; sensors idle")
        #expect(SourceRequest.none.readingSummary == ": all idle (nothing subscribed)")
    }

    @Test("a line is sent the first time and when it changes, not again unchanged")
    func changes() {
        var line = StatusLine()
        #expect(line.update("0 clients; sensors idle") == "0 clients; sensors idle")
        #expect(line.update("0 clients; sensors idle") == nil)
        #expect(line.update("1 client; sensors idle") == "1 client; sensors idle")
    }

    @Test("missing: a motion sensor the source found unavailable, any other only while asked for")
    func missing() throws {
        var sensors = SensorStates(allowed: Set(SensorKind.allCases))
        let gone = SensorAvailability(isAvailable: false, reason: "not found")
        _ = sensors.record(.magnetometer, gone)
        _ = sensors.record(.proximity, gone)
        _ = sensors.record(.accelerometer, SensorAvailability(isAvailable: true, reason: "reading"))
        #expect(sensors.missing(reading: .none) == [.magnetometer])
        #expect(sensors.missing(reading: try SourceRequest([.proximity: 0.1])) == [.magnetometer, .proximity])
    }
}
