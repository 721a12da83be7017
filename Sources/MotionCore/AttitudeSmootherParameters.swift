/// Tuning of ``AttitudeSmoother``, the offline estimator. Its own set, apart from the online
/// estimator's: looking both ways in time changes what is best. Angles in degrees, times in
/// seconds. The values were chosen on the shared BROAD recordings (docs/ACCURACY.md).
public struct AttitudeSmootherParameters: Sendable, Hashable, Codable {
    /// Time constant of the zero-phase low-pass of the specific force in the gyroscope's
    /// almost-inertial frame, whose direction sets the inclination.
    public var accelerometerTau = 3.0
    /// Time constant of the heading smoother (``HeadingSmoother``).
    public var headingTau = 20.0
    /// Magnetometer headings farther than this from the smoothed heading are dropped as
    /// disturbed, and the heading smoothed again without them.
    public var headingOutlierThreshold = 10.0
    /// How many times outliers are dropped and the heading smoothed again.
    public var headingOutlierIterations = 3
    /// Magnetic disturbance: relative deviation of the field norm from the recording's median.
    public var magneticNormThreshold = 0.1
    /// Magnetic disturbance: deviation of the dip angle from the recording's median, degrees.
    public var magneticDipThreshold = 10.0
    /// Whether the accelerometer's and the magnetometer's lags behind the gyroscope are
    /// estimated from the recording (``SensorLag``); otherwise the sensors count as simultaneous.
    public var estimatesSensorLags = true
    /// The largest lag considered either way, seconds.
    public var maximumSensorLag = 0.05
    /// The spacing of the lags tried before the refinement, seconds.
    public var sensorLagStep = 0.005
    /// Rest detection (for the gyroscope bias) and the longest gap bridged, as online.
    public var estimator = AttitudeEstimatorParameters()

    public init() {}
}
