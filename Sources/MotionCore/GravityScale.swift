/// What the accelerometer reads for 1 G, so that "is the device accelerating" means the same on
/// any scale.
///
/// A device at rest reads 1 G — unless its driver's scale is wrong or missing (real drivers
/// exist; iio-sensor-proxy's own test devices read 26 G at rest). Orientation and tilt depend
/// on gravity's direction only, but the detectors' acceleration checks compare magnitudes with
/// 1 G, and a device reading 26 G would look accelerating forever. The rule: readings that all
/// lie within ``stillTolerance`` of the first of their stretch (relative to its magnitude: the
/// same on any scale), at least ``stillReadings`` of them over at least ``stillTime``, are the
/// device at rest; when their mean magnitude is outside ``plausible``, that mean is the
/// device's 1 G, else 1 G is 1 G. Judged at rest only: a shake's peak or a fall never lies
/// still that long (a falling device reads about zero, which no relative tolerance holds), so
/// moving a good device never rescales it. Pure: readings (G, device frame) and their times
/// (seconds) in.
public struct GravityScale: Sendable, Hashable {
    /// Magnitudes (G) a device at rest with a right scale reads (1 G, with margin for
    /// calibration error and for a reading taken on a moving platform).
    public static let plausible = 0.5...2.0
    /// How far (a fraction of the stretch's first reading's magnitude) a reading may lie from
    /// it and still count as at rest; also how much the learned 1 G must move to be taken again.
    public static let stillTolerance = 0.05
    /// Readings a rest needs…
    public static let stillReadings = 3
    /// …and the time they must span, s.
    public static let stillTime = 0.2

    /// The magnitude (G) this accelerometer reads for 1 G: 1 until a rest says otherwise.
    public private(set) var oneG = 1.0
    private var first: Vector3?
    private var since = 0.0
    private var count = 0
    private var sum = 0.0

    public init() {}

    /// Whether ``oneG`` is 1 (the accelerometer's scale is plausible).
    public var isPlausible: Bool { oneG == 1 }

    /// Takes one accelerometer reading at `time`; true when it changed ``oneG``. A non-finite
    /// or zero reading ends the stretch.
    public mutating func update(_ acceleration: Vector3, at time: Double) -> Bool {
        let magnitude = acceleration.norm
        guard magnitude.isFinite, magnitude > 0, time.isFinite else {
            first = nil
            return false
        }
        if let first, (acceleration - first).norm <= Self.stillTolerance * first.norm, time >= since {
            count += 1
            sum += magnitude
        } else {
            (first, since, count, sum) = (acceleration, time, 1, magnitude)
        }
        guard count >= Self.stillReadings, time - since >= Self.stillTime - 1e-6 else { return false }
        let mean = sum / Double(count)
        let now = Self.plausible.contains(mean) ? 1 : mean
        guard abs(now - oneG) > Self.stillTolerance * oneG else { return false }
        oneG = now
        return true
    }
}
