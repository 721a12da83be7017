import Glibc

/// A deterministic simulated IMU (accelerometer, gyroscope, magnetometer) playing a
/// ``MotionScript``, with white noise, a constant gyroscope bias and a magnetometer hard-iron
/// offset, so that everything downstream (fusion, calibration, detectors) sees realistic data.
/// Beside it, an ambient light and a proximity sensor that follow the screen's facing: a room
/// of ``Settings/roomLight`` lux seen fully when the screen faces up, less as it turns away,
/// none face down — where the proximity sensor is covered (near).
///
/// Readings are in Core Motion units and the device frame (see ``SensorKind``). Two IMUs with the
/// same settings produce identical samples for the same sequence of calls.
public struct SimulatedIMU: Sendable {
    /// Noise and error model, with defaults typical of a consumer MEMS IMU at 50–100 Hz.
    public struct Settings: Sendable {
        /// Accelerometer white noise, G (1σ per sample).
        public var accelerometerNoise = 0.002
        /// Gyroscope white noise, rad/s (1σ per sample).
        public var gyroscopeNoise = 0.002
        /// Constant gyroscope bias, rad/s.
        public var gyroscopeBias = Vector3(0.004, -0.003, 0.002)
        /// Magnetometer white noise, µT (1σ per sample).
        public var magnetometerNoise = 0.3
        /// Magnetometer hard-iron offset, µT.
        public var hardIron = Vector3(6, -4, 3)
        /// Earth field in the reference frame (X north, Y west, Z up), µT: 20 µT horizontal,
        /// 44 µT downward (inclination ≈ 65°, central Europe).
        public var earthField = Vector3(20, 0, -44)
        /// Hand tremor: a small oscillating rotation of this amplitude (radians; 0 = none)…
        public var tremorAmplitude = 0.0
        /// …at this frequency (Hz; physiological tremor is 8–12 Hz), about a fixed oblique axis.
        public var tremorFrequency = 8.0
        /// Illuminance seen by a screen facing straight up, lux (an office).
        public var roomLight = 320.0
        /// Seed of the noise generator.
        public var seed: UInt64 = 0x6D6F_7469_6F6E_64

        public init() {}
    }

    public let script: MotionScript
    public let settings: Settings
    private var random: SeededRandom

    public init(script: MotionScript = .standard, settings: Settings = Settings()) {
        self.script = script
        self.settings = settings
        random = SeededRandom(seed: settings.seed)
    }

    /// The noise-free reading of `kind` for a script state.
    public func idealReading(_ kind: SensorKind, in state: MotionScript.State) -> Vector3 {
        let toDevice = state.attitude.inverse
        switch kind {
        case .accelerometer, .baseAccelerometer:
            // A slate has no base; asked for one, it is a convertible folded into a tablet, its
            // base behind the display reading what the display reads (hinge at 360°).
            // Gravity-vector sign: the measured vector is gravity (down) plus user acceleration.
            return toDevice.rotate(Vector3(0, 0, -1)) + state.userAcceleration
        case .gyroscope, .baseGyroscope:
            // Asked for a base gyroscope, the tablet's base turns with its display.
            return state.rotationRate
        case .magnetometer:
            return toDevice.rotate(settings.earthField)
        case .light:
            // −z of gravity in the device frame: 1 face up, 0 on edge, −1 face down. Whole lux,
            // as light sensors report.
            let facing = -toDevice.rotate(Vector3(0, 0, -1)).z
            return Vector3((settings.roomLight * max(0, 0.5 + 0.5 * facing)).rounded(), 0, 0)
        case .proximity:
            // Face down on a table: covered, three times the near level; else a tenth of it.
            let covered = toDevice.rotate(Vector3(0, 0, -1)).z > 0.8
            return Vector3(covered ? 3 : 0.1, 0, 0)
        }
    }

    /// The scripted state with the hand tremor added: attitude turned by the tremor angle, and
    /// the tremor's rate added to the (tremor-rotated) script rate.
    func trembling(_ state: MotionScript.State, at time: Double) -> MotionScript.State {
        let a = settings.tremorAmplitude
        guard a != 0 else { return state }
        let axis = Vector3(1, 1, 0.5) / Vector3(1, 1, 0.5).norm
        let phase = 2 * Double.pi * settings.tremorFrequency * time
        let tremor = Quaternion(axis: axis, angle: a * sin(phase))
        var shaken = state
        shaken.attitude = state.attitude * tremor
        shaken.rotationRate = tremor.inverse.rotate(state.rotationRate) + axis * (a * 2 * .pi * settings.tremorFrequency * cos(phase))
        return shaken
    }

    /// One sample of `kind` at `time` seconds into the script, stamped `timestamp`.
    public mutating func sample(_ kind: SensorKind, at time: Double, timestamp: Double) -> Sample {
        let ideal = idealReading(kind, in: trembling(script.state(at: time), at: time))
        let measured: Vector3
        switch kind {
        case .accelerometer, .baseAccelerometer:
            measured = ideal + random.gaussianVector(sigma: settings.accelerometerNoise)
        case .gyroscope, .baseGyroscope:
            measured = ideal + settings.gyroscopeBias + random.gaussianVector(sigma: settings.gyroscopeNoise)
        case .magnetometer:
            measured = ideal + settings.hardIron + random.gaussianVector(sigma: settings.magnetometerNoise)
        case .light, .proximity:
            measured = ideal
        }
        return Sample(kind: kind, timestamp: timestamp, vector: measured)
    }
}
