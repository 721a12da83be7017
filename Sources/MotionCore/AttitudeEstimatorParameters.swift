/// Tuning of ``AttitudeEstimator``. One set serves every device and trace; the defaults are
/// what the daemon ships. Angles in degrees, rates in °/s, times in seconds.
public struct AttitudeEstimatorParameters: Sendable, Hashable, Codable {
    /// Time constant of the low-pass applied to the acceleration in the almost-inertial frame
    /// before it corrects the inclination: longer rides out linear acceleration better.
    public var accelerometerTau = 3.0
    /// Time constant of the magnetometer heading correction for a reading whose norm and dip
    /// agree exactly with the magnetic reference: VQF's 9 s. Readings that agree less correct
    /// it more slowly (``magneticNormWidth``, ``magneticDipWidth``; docs/ACCURACY.md).
    public var magnetometerTau = 9.0
    /// Rest: low-pass time constant of the gyroscope and accelerometer signals compared.
    public var restFilterTau = 0.5
    /// Rest: largest deviation of the gyroscope from its low-pass, °/s.
    public var restGyroscopeThreshold = 2.0
    /// Rest: largest deviation of the acceleration from its low-pass, m/s².
    public var restAccelerometerThreshold = 0.5
    /// Rest: how long both must stay within the thresholds.
    public var restMinimumTime = 1.5
    /// At rest the bias follows the low-passed gyroscope with this time constant.
    public var restBiasTau = 1.0
    /// In motion, the inclination corrections (which a residual bias causes) feed the bias with
    /// this time constant; 0 disables it. Only the horizontal part is observable this way.
    /// 200 s: chosen by the sweep in docs/ACCURACY.md (faster learning helps 9D a little and
    /// costs 6D).
    public var motionBiasTau = 200.0
    /// Largest gyroscope bias believed, °/s (a larger "rest" rate is real rotation).
    public var biasClip = 2.0
    /// Magnetic disturbance: relative deviation of the field norm from the reference.
    public var magneticNormThreshold = 0.1
    /// Magnetic disturbance: deviation of the dip angle from the reference, degrees.
    public var magneticDipThreshold = 10.0
    /// An undisturbed reading's heading counts exp(−(Δnorm/``magneticNormWidth``)² −
    /// (Δdip/``magneticDipWidth``)²), Δnorm relative to the reference norm, Δdip in degrees:
    /// 0.4 times the rejection thresholds, so a reading at either threshold counts e⁻⁶. 0 leaves
    /// that deviation out.
    public var magneticNormWidth = 0.04
    /// The dip's width of that weight, degrees (see ``magneticNormWidth``).
    public var magneticDipWidth = 4.0
    /// The reference norm and dip adapt with this time constant while undisturbed.
    public var magneticReferenceTau = 20.0
    /// A different but steady field is accepted as the new reference after this long.
    public var magneticNewFieldTime = 20.0
    /// A gap between samples longer than this restarts integration instead of bridging it.
    public var maximumGap = 0.5

    public init() {}
}
