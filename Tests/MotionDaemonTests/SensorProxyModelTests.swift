import MotionCore
import MotionDBus
import MotionProtocol
import Testing
@testable import MotionDaemon

/// The D-Bus face's properties from the pipeline's messages: iio-sensor-proxy's names, flat
/// keeping the last upright orientation, presence from availability, readings for the claims.
@Suite("SensorProxyModel")
struct SensorProxyModelTests {
    static func available(_ kind: SensorKind, _ yes: Bool = true) -> ServerMessage {
        .availability(kind, SensorState(available: yes, reason: yes ? "found" : "removed"))
    }

    @Test("orientation in iio-sensor-proxy's names; flat keeps the last upright one; each orientation message is a reading")
    func orientation() {
        var model = SensorProxyModel()
        #expect(model.take([Self.available(.accelerometer)]).isEmpty)
        #expect(model.state.hasAccelerometer && model.state.accelerometerOrientation == "undefined")
        #expect(model.take([.event(.orientation(.faceUp, timestamp: 1))]) == [.accelerometer], "flat from the start: a reading, still undefined")
        #expect(model.state.accelerometerOrientation == "undefined")
        let expected: [(DeviceOrientation, String)] = [(.portrait, "normal"), (.landscapeRight, "left-up"), (.faceDown, "left-up"),
                                                       (.landscapeLeft, "right-up"), (.portraitUpsideDown, "bottom-up"), (.unknown, "bottom-up")]
        for (orientation, name) in expected {
            _ = model.take([.event(.orientation(orientation, timestamp: 2))])
            #expect(model.state.accelerometerOrientation == name, "\(orientation)")
        }
        #expect(model.take([.event(.tilt(.tiltedUp, timestamp: 3))]).isEmpty, "a tilt alone is not the claim's reading")
        #expect(model.state.accelerometerTilt == "tilted-down", "iio-sensor-proxy's name for the same reading (its z sign)")
        _ = model.take([Self.available(.accelerometer, false)])
        #expect(!model.state.hasAccelerometer && model.state.accelerometerOrientation == "undefined" && model.state.accelerometerTilt == "undefined",
                "gone: reset")
    }

    @Test("an accelerometer located in the base is not the display's: not offered; one in the display or of unknown place is")
    func baseAccelerometer() {
        var model = SensorProxyModel()
        _ = model.take([.availability(.accelerometer, SensorState(available: true, reason: "found", location: .base))])
        #expect(!model.state.hasAccelerometer)
        _ = model.take([.availability(.accelerometer, SensorState(available: true, reason: "found", location: .display))])
        #expect(model.state.hasAccelerometer)
        _ = model.take([.availability(.accelerometer, SensorState(available: true, reason: "found", location: .base))])
        #expect(!model.state.hasAccelerometer && model.state.accelerometerOrientation == "undefined")
        _ = model.take([Self.available(.accelerometer)])
        #expect(model.state.hasAccelerometer, "no location known (the simulation, a replay): offered")
    }

    @Test("the compass: present with the sensors the heading needs; the top edge's heading to 0.1°, −1 when unknown or gone")
    func compass() {
        var model = SensorProxyModel()
        _ = model.take([Self.available(.accelerometer), Self.available(.magnetometer)])
        #expect(!model.state.hasCompass, "the heading needs the gyroscope too")
        _ = model.take([Self.available(.gyroscope)])
        #expect(model.state.hasCompass && model.state.compassHeading == -1)
        let heading = Heading(timestamp: 3, magneticHeading: 261.94, trueHeading: -1, headingAccuracy: 5, field: MagneticField(x: 20, y: 0, z: -40))
        #expect(model.take([.heading(heading, orientation: .portrait, topEdge: 261.94)]) == [.compass])
        #expect(model.state.compassHeading == 261.9)
        _ = model.take([Self.available(.magnetometer, false)])
        #expect(!model.state.hasCompass && model.state.compassHeading == -1)
    }

    @Test("a heading that rounds to 360° is shown as 0° (north), never 360: CompassHeading stays in [0, 360)")
    func headingWrapsAtNorth() {
        var model = SensorProxyModel()
        _ = model.take([Self.available(.accelerometer), Self.available(.magnetometer), Self.available(.gyroscope)])
        for (topEdge, shown) in [(359.96, 0.0), (359.94, 359.9), (0.04, 0.0), (360.0, 0.0), (180.06, 180.1)] {
            let heading = Heading(timestamp: 3, magneticHeading: topEdge, trueHeading: -1, headingAccuracy: 5, field: MagneticField(x: 20, y: 0, z: -40))
            _ = model.take([.heading(heading, orientation: .portrait, topEdge: topEdge)])
            #expect(model.state.compassHeading == shown, "\(topEdge)° shown as \(model.state.compassHeading)")
        }
    }

    @Test("light in lux and proximity near/far, each a reading of its sensor; present with its sensor, iio-sensor-proxy's defaults when gone")
    func lightAndProximity() {
        var model = SensorProxyModel()
        #expect(!model.state.hasAmbientLight && !model.state.hasProximity)
        _ = model.take([Self.available(.light), Self.available(.proximity)])
        #expect(model.state.hasAmbientLight && model.state.hasProximity)
        #expect(model.take([.sample(Sample(kind: .light, timestamp: 1, vector: Vector3(212.5, 0, 0)))]) == [.light])
        #expect(model.state.lightLevel == 212.5 && model.state.lightLevelUnit == "lux")
        #expect(model.take([.proximity(Proximity(near: true, level: 2, timestamp: 1))]) == [.proximity])
        #expect(model.state.proximityNear)
        _ = model.take([Self.available(.light, false), Self.available(.proximity, false)])
        #expect(!model.state.hasAmbientLight && model.state.lightLevel == 0)
        #expect(!model.state.hasProximity && !model.state.proximityNear)
    }
}
