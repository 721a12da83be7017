import Testing
import MotionCore

@Suite("SensorKind, Sample and constants")
struct SensorKindTests {
    @Test("IIO channel types and Core Motion units")
    func channelTypesAndUnits() {
        #expect(SensorKind.accelerometer.iioChannelType == "accel")
        #expect(SensorKind.gyroscope.iioChannelType == "anglvel")
        #expect(SensorKind.magnetometer.iioChannelType == "magn")
        #expect(SensorKind.accelerometer.unit == "G")
        #expect(SensorKind.gyroscope.unit == "rad/s")
        #expect(SensorKind.magnetometer.unit == "µT")
        #expect(SensorKind.light.iioChannelType == "illuminance")
        #expect(SensorKind.proximity.iioChannelType == "proximity")
        #expect(SensorKind.light.unit == "lx")
        #expect(SensorKind.allCases.count == 7)
        #expect(SensorKind.motion == [.accelerometer, .gyroscope, .magnetometer])
        // Three axes: the fusion's sensors and a convertible's base accelerometer and gyroscope.
        #expect(SensorKind.allCases.filter(\.isMotion) == SensorKind.motion + [.baseAccelerometer, .baseGyroscope])
        #expect(SensorKind.allCases.map(\.axisCount) == [3, 3, 3, 1, 1, 3, 3])
        #expect(SensorKind.baseAccelerometer.iioChannelType == "accel")
        #expect(SensorKind.baseAccelerometer.unit == "G")
        #expect(SensorKind.baseGyroscope.iioChannelType == "anglvel")
        #expect(SensorKind.baseGyroscope.unit == "rad/s")
        #expect(SensorKind.gyroscope.description == "gyroscope")
    }

    @Test("physical constants")
    func constants() {
        #expect(PhysicalConstants.standardGravity == 9.80665)
        #expect(PhysicalConstants.microteslaPerGauss == 100)
    }

    @Test("Sample stores its fields")
    func sample() {
        let s = Sample(kind: .magnetometer, timestamp: 12.5, vector: Vector3(1, 2, 3))
        #expect(s.kind == .magnetometer)
        #expect(s.timestamp == 12.5)
        #expect(s.vector == Vector3(1, 2, 3))
    }
}
