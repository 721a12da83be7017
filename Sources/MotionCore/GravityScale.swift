/// What the accelerometer reads for 1 G, so that "is the device accelerating" means the same on
/// any scale.
///
/// A device at rest reads 1 G — unless its driver's scale is wrong or missing (real drivers
/// exist; iio-sensor-proxy's own test devices read 26 G at rest). Orientation and tilt depend
/// on gravity's direction only, but the detectors' acceleration checks compare magnitudes with
/// 1 G, and a device reading 26 G would look accelerating forever. The rule: a stretch of at
/// least ``stillReadings`` readings whose magnitudes all lie within ``stillTolerance``
/// (relative) of the stretch's first is the device at rest; when the stretch's mean magnitude
/// is outside ``plausible``, that mean is the device's 1 G, else 1 G is 1 G. Judged at rest
/// only, so shaking a good device never rescales it. Pure: readings (G, device frame) in.
public struct GravityScale: Sendable, Hashable {
    /// Magnitudes (G) a device at rest with a right scale reads (1 G, with margin for
    /// calibration error and for a reading taken on a moving platform).
    public static let plausible = 0.5...2.0
    /// How far (a fraction of the stretch's first magnitude) a reading may lie from it and still
    /// count as at rest; also how much the learned 1 G must move before it is taken again.
    public static let stillTolerance = 0.05
    /// Readings a stretch needs before it is judged.
    public static let stillReadings = 3

    /// The magnitude (G) this accelerometer reads for 1 G: 1 until a rest says otherwise.
    public private(set) var oneG = 1.0
    private var first: Double?
    private var count = 0
    private var sum = 0.0

    public init() {}

    /// Whether ``oneG`` is 1 (the accelerometer's scale is plausible).
    public var isPlausible: Bool { oneG == 1 }

    /// Takes one accelerometer reading; true when it changed ``oneG``. A non-finite or zero
    /// reading ends the stretch.
    public mutating func update(_ acceleration: Vector3) -> Bool {
        let magnitude = acceleration.norm
        guard magnitude.isFinite, magnitude > 0 else {
            first = nil
            return false
        }
        if let first, abs(magnitude - first) <= Self.stillTolerance * first {
            count += 1
            sum += magnitude
        } else {
            (first, count, sum) = (magnitude, 1, magnitude)
        }
        guard count >= Self.stillReadings else { return false }
        let mean = sum / Double(count)
        let now = Self.plausible.contains(mean) ? 1 : mean
        guard abs(now - oneG) > Self.stillTolerance * oneG else { return false }
        oneG = now
        return true
    }
}
