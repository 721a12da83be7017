import MotionCore
import MotionIIO
import Testing
@testable import MotionDaemon

/// What a person reads in the journal about the engine, the sensors and device motion.
@Suite("EngineEventLog")
struct EngineEventLogTests {
    @Test("engine events: calibration changes at notice with the figure-eight hint while needed, an inconsistent axis check at warning with how to apply it, a restart naming the gap, the sensor lags in ms at info")
    func engineEvents() throws {
        let recorder = LogRecorder()
        let log = EngineEventLog(logger: recorder.logger)
        let engine = MotionEngine()
        log.engine(.calibrationAccuracyChanged(from: .uncalibrated, to: .low), engine: engine)
        log.engine(.axisCheckConcluded(.consistent, applied: false), engine: engine)
        log.engine(.axisCheckConcluded(.inconsistent(correction: .identity), applied: false), engine: engine)
        log.engine(.magneticDisturbance(began: true), engine: engine)
        log.engine(.attitudeRestarted, engine: engine)
        log.engine(.sensorLags(MotionEngine.SensorLags(accelerometer: 0.00483, magnetometer: 0.0113)), engine: engine)
        log.engine(.sensorLags(MotionEngine.SensorLags(accelerometer: 0.0021, magnetometer: 0)), engine: engine)
        let notices = recorder.messages(.notice)
        // No magnetometer yet: nothing to calibrate, so no hint.
        #expect(notices.first == "magnetometer calibration accuracy uncalibrated → low")
        var withMagnetometer = MotionEngine()
        withMagnetometer.magnetometerPresent = true
        try #require(withMagnetometer.status.calibrationNeeded)
        log.engine(.calibrationAccuracyChanged(from: .uncalibrated, to: .low), engine: withMagnetometer)
        #expect(recorder.messages(.notice).last
                == "magnetometer calibration accuracy uncalibrated → low; move the device in a figure eight to calibrate the magnetometer")
        #expect(notices.last?.hasPrefix("the motion samples stopped for more than 0.5 s") == true)
        // At a rest rate of 2 s, the outage is a gap over 3 s.
        var resting = MotionEngine()
        resting.readingInterval = 2
        log.engine(.attitudeRestarted, engine: resting)
        #expect(recorder.messages(.notice).last?.hasPrefix("the motion samples stopped for more than 3 s") == true)
        #expect(recorder.messages(.info) == ["axis self-check: consistent: gyroscope and accelerometer axes agree",
                                             "magnetic disturbance: heading coasts on the gyroscope",
                                             "samples lag the gyroscope's, the accelerometer's by 4.8 ms, the magnetometer's by 11.3 ms: fused as at the gyroscope's time",
                                             "samples lag the gyroscope's, the accelerometer's by 2.1 ms: fused as at the gyroscope's time"])
        #expect(recorder.messages(.warning).first?.hasSuffix("; run with --apply-axis-correction to apply it") == true)
    }

    @Test("availability: info when a sensor comes or goes, debug when only its reason changes")
    func availability() {
        let recorder = LogRecorder()
        let log = EngineEventLog(logger: recorder.logger)
        log.availability(.gyroscope, SensorAvailability(isAvailable: false, reason: "iio:device1 was removed"), changed: true)
        log.availability(.gyroscope, SensorAvailability(isAvailable: false, reason: "still gone"), changed: false)
        #expect(recorder.messages(.info) == ["gyroscope unavailable: iio:device1 was removed"])
        #expect(recorder.messages(.debug) == ["gyroscope unavailable: still gone"])
    }

    @Test("device motion stopping and resuming: at notice for the daemon's own printing, at debug for a client")
    func deviceMotion() {
        let recorder = LogRecorder()
        let log = EngineEventLog(logger: recorder.logger)
        log.deviceMotion([(.local(.printer), .xMagneticNorthZVertical, .warmingUp), (.client(ClientID(raw: 3)), .xArbitraryZVertical, nil)])
        #expect(recorder.messages(.notice).first?.hasPrefix("no device motion for local output: ") == true)
        #expect(recorder.messages(.debug) == ["device motion in xArbitraryZVertical available for client 3"])
    }
}
