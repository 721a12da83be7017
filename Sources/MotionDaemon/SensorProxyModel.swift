import MotionCore
import MotionDBus
import MotionProtocol

/// What the D-Bus face shows, worked out from the messages the pipeline sends its subscriber:
/// availability of every sensor, orientation, tilt, light level, proximity, heading — in
/// iio-sensor-proxy's names and conventions (docs/DBUS.md). Pure: the messages in, the
/// properties out, and which sensors a message brought a reading of (a pending `Claim…` is
/// answered with that reading in place).
struct SensorProxyModel: Sendable {
    private(set) var state = SensorProxyState()
    /// The last upright orientation in iio-sensor-proxy's names: lying flat (or an undecided
    /// orientation) keeps it, as iio-sensor-proxy keeps its last orientation when the
    /// screen's angles are in its dead zone.
    private var upright: String?
    private var available: [SensorKind: SensorState] = [:]

    /// The heading is shown in tenths of a degree, in [0, 360): finer changes are noise, not news.
    static let headingSteps = 10.0

    /// Takes one batch of messages; returns the sensors a reading arrived for.
    mutating func take(_ messages: [ServerMessage]) -> Set<ProxySensor> {
        var readings: Set<ProxySensor> = []
        for message in messages {
            switch message {
            case .availability(let kind, let sensorState):
                available[kind] = sensorState
                updateAvailability()
            case .event(.orientation(let orientation, _)):
                switch orientation {
                case .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight:
                    upright = orientation.iioSensorProxyName
                case .faceUp, .faceDown, .unknown:
                    break
                }
                state.accelerometerOrientation = upright ?? "undefined"
                readings.insert(.accelerometer)
            case .event(.tilt(let tilt, _)):
                state.accelerometerTilt = tilt.iioSensorProxyName(specificForce: available[.accelerometer]?.specificForce == true)
            case .sample(let sample) where sample.kind == .light:
                // IIO illuminance is in lux; a hwmon sensor's level is in iio-sensor-proxy's
                // "vendor" unit (its availability says so).
                state.lightLevel = sample.vector.x
                state.lightLevelUnit = available[.light]?.unit ?? "lux"
                readings.insert(.light)
            case .proximity(let proximity):
                state.proximityNear = proximity.near
                readings.insert(.proximity)
            case .heading(_, _, let topEdge):
                // Rounded, then wrapped: 359.96° is shown as 0°, never as 360°.
                let steps = (topEdge * Self.headingSteps).rounded().truncatingRemainder(dividingBy: 360 * Self.headingSteps)
                state.compassHeading = topEdge.isFinite && topEdge >= 0 ? steps / Self.headingSteps : -1
                readings.insert(.compass)
            default:
                break
            }
        }
        return readings
    }

    private mutating func updateAvailability() {
        func has(_ kind: SensorKind) -> Bool { available[kind]?.available == true }
        // A convertible's base accelerometer (standing in for a missing display one) says
        // nothing of the screen's orientation: not offered, as iio-sensor-proxy ignores it.
        let present = has(.accelerometer) && available[.accelerometer]?.location != .base
        if !present, state.hasAccelerometer {
            // Gone: iio-sensor-proxy resets the orientation when its accelerometer disappears.
            state.accelerometerOrientation = "undefined"
            state.accelerometerTilt = "undefined"
            upright = nil
        }
        state.hasAccelerometer = present
        state.hasCompass = StreamName.heading.sensors().allSatisfy(has)
        if !state.hasCompass { state.compassHeading = -1 }
        // Gone: iio-sensor-proxy's values when there is no such sensor.
        state.hasAmbientLight = has(.light)
        if !state.hasAmbientLight { state.lightLevel = 0 }
        state.hasProximity = has(.proximity)
        if !state.hasProximity { state.proximityNear = false }
    }
}
