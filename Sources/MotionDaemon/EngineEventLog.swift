import Logging
import MotionCore
import MotionIIO

/// How the pipeline words, for the journal, what the motion engine, the source and the
/// subscriptions tell it: the level and the sentence of each, in one place. Sensor lines carry
/// the `sensor` field (`journalctl MOTIOND_SENSOR=magnetometer`).
struct EngineEventLog: Sendable {
    let logger: Logger

    /// Something the motion engine noticed while taking a sample.
    func engine(_ event: MotionEngine.Event, engine: MotionEngine) {
        switch event {
        case .calibrationAccuracyChanged(let from, let to):
            let hint = engine.status.calibrationNeeded ? "; move the device in a figure eight to calibrate the magnetometer" : ""
            logger.notice("magnetometer calibration accuracy \(from) → \(to)\(hint)")
        case .axisCheckConcluded(let verdict, let applied):
            switch verdict {
            case .consistent, .undetermined:
                logger.info("axis self-check: \(verdict)")
            case .inconsistent, .implausible:
                logger.warning("axis self-check: \(verdict)\(applied ? "; correction applied" : "; run with --apply-axis-correction to apply it")")
            }
        case .magneticDisturbance(let began):
            logger.info(began ? "magnetic disturbance: heading coasts on the gyroscope" : "magnetic disturbance over")
        case .attitudeRestarted:
            let gap = SysfsNumber.format(engine.estimator.maximumGap)
            logger.notice("the motion samples stopped for more than \(gap) s (a suspend, a stopped daemon, an unplugged sensor): attitude restarted from gravity, heading from the next magnetometer reading")
        case .accelerometerScale(let oneG) where oneG == 1:
            logger.notice("the accelerometer reads 1 G at rest again: its readings are taken as they are")
        case .accelerometerScale(let oneG):
            logger.warning("the accelerometer reads \(SysfsNumber.format((oneG * 100).rounded() / 100)) G at rest, not 1 G (a wrong or missing in_accel_scale?): orientation, tilt, gestures and fusion take that as its 1 G; its accelerometer stream is left as read", metadata: ["sensor": "accelerometer"])
        case .sensorLags(let lags):
            let late = [("accelerometer", lags.accelerometer), ("magnetometer", lags.magnetometer)].filter { $0.1 > 0 }
                .map { "the \($0.0)'s by \(SysfsNumber.format(($0.1 * 10_000).rounded() / 10)) ms" }
            logger.info(late.isEmpty ? "the sensors' samples are fused as simultaneous with the gyroscope's"
                : "samples lag the gyroscope's, \(late.joined(separator: ", ")): fused as at the gyroscope's time")
        }
    }

    /// What the source said of a sensor: at info when it became available or unavailable
    /// (`changed`), at debug when only the reason changed.
    func availability(_ kind: SensorKind, _ availability: SensorAvailability, changed: Bool) {
        let message: Logger.Message = "\(kind) \(availability.isAvailable ? "available" : "unavailable"): \(availability.reason)"
        let metadata: Logger.Metadata = ["sensor": "\(kind)"]
        if changed { logger.info(message, metadata: metadata) } else { logger.debug(message, metadata: metadata) }
    }

    /// What the daemon's own detectors saw (shakes, orientation changes, gestures), at debug.
    func detectorEvents(_ events: [MotionEvent]) {
        for event in events { logger.debug("\(event.text)") }
    }

    /// Device-motion subscriptions whose values stopped (with why) or resumed. The daemon's own
    /// printing says so at notice — it is why it prints nothing; a client learns why from `get`,
    /// so its changes are debug.
    func deviceMotion(_ changes: [(recipient: Recipient, frame: AttitudeReferenceFrame, unavailable: DeviceMotionUnavailable?)]) {
        for (recipient, frame, unavailable) in changes {
            let message: Logger.Message = unavailable.map { "no device motion for \(recipient): \($0)" }
                ?? "device motion in \(frame) available for \(recipient)"
            if recipient == .local(.printer) { logger.notice(message) } else { logger.debug(message) }
        }
    }

    /// What the source reads now, after the subscriptions changed.
    func sensors(_ request: SourceRequest) {
        logger.info("sensors\(request.readingSummary)")
    }
}
