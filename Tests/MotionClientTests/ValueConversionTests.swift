import MotionCore
import MotionProtocol
import Testing

@testable import MotionClient

/// What a handler or a pull gets from a message of the daemon: each sample stream's Core Motion
/// value, and nothing for a message of another stream.
@Suite("Messages to Core Motion values")
struct ValueConversionTests {
    static let vector = Vector3(0.25, -0.5, -1)

    static func sample(_ kind: SensorKind) -> ServerMessage {
        .sample(Sample(kind: kind, timestamp: 12.5, vector: vector))
    }

    @Test("an accelerometer sample is accelerometer data: its timestamp, its vector as G on x, y, z")
    func accelerometer() {
        #expect(MotionManager.accelerometerData(Self.sample(.accelerometer))
            == AccelerometerData(timestamp: 12.5, acceleration: Acceleration(x: 0.25, y: -0.5, z: -1)))
    }

    @Test("a gyroscope sample is gyro data, a magnetometer sample magnetometer data")
    func gyroAndMagnetometer() {
        #expect(MotionManager.gyroData(Self.sample(.gyroscope))
            == GyroData(timestamp: 12.5, rotationRate: RotationRate(x: 0.25, y: -0.5, z: -1)))
        #expect(MotionManager.magnetometerData(Self.sample(.magnetometer))
            == MagnetometerData(timestamp: 12.5, magneticField: MagneticField(x: 0.25, y: -0.5, z: -1)))
    }

    @Test("a sample of another sensor, or another message, is no value of the stream")
    func otherMessages() {
        #expect(MotionManager.accelerometerData(Self.sample(.gyroscope)) == nil)
        #expect(MotionManager.gyroData(Self.sample(.accelerometer)) == nil)
        #expect(MotionManager.magnetometerData(Self.sample(.accelerometer)) == nil)
        #expect(MotionManager.deviceMotionData(Self.sample(.accelerometer)) == nil)
        #expect(MotionManager.headingData(Self.sample(.magnetometer)) == nil)
    }
}
