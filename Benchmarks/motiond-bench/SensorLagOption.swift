import ArgumentParser
import MotionCore

/// `--no-sensor-lags`: the online engine without its learned sensor lags, to measure what they
/// are worth (accuracy) and what they cost (time).
struct SensorLagOption: ParsableArguments {
    @Flag(help: "Take the accelerometer's and the magnetometer's samples as simultaneous with the gyroscope's (their lags neither learned nor compensated).")
    var noSensorLags = false

    func apply(to configuration: inout MotionEngine.Configuration) {
        if noSensorLags { configuration.compensatesSensorLags = false }
    }
}
