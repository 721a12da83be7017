/// Whether the accelerometer has been still, and since when: the current stretch of readings
/// that all lie within `tolerance` of the stretch's first reading (G, device frame). Pure: time
/// comes from the timestamps passed in (seconds).
///
/// Two decisions rest on it: the daemon reads a device that has been still for a second only a
/// few times a second (its rest rate) and returns to full rate at the first reading that
/// leaves the stretch; the orientation detector takes a reading held still for a few samples
/// as gravity itself, with no low-pass lag and no settle wait (a device set down in a new
/// position is reported as soon as it is seen to lie there).
public struct Stillness: Sendable, Hashable {
    /// How far (G) a reading may lie from the stretch's first and still belong to it: above
    /// the noise of laptop and tablet accelerometers (a few mG), below a 3° tilt (0.05 G).
    public var tolerance: Double
    /// The stretch's first reading.
    public private(set) var reference: Vector3?
    /// Its time, and the latest reading's.
    public private(set) var since = 0.0
    public private(set) var latest = 0.0
    /// Readings in the stretch, and their sum (for the mean).
    public private(set) var count = 0
    private var sum = Vector3.zero

    public init(tolerance: Double = 0.05) {
        self.tolerance = tolerance
    }

    /// Takes one accelerometer reading; non-finite readings end the stretch. Returns false
    /// when the reading started a new stretch (the device moved).
    @discardableResult
    public mutating func update(_ acceleration: Vector3, at time: Double) -> Bool {
        guard acceleration.isFinite, time.isFinite else {
            reset()
            return false
        }
        if belongs(acceleration), time >= latest {
            count += 1
            sum = sum + acceleration
            latest = time
            return true
        }
        reference = acceleration
        since = time
        latest = time
        count = 1
        sum = acceleration
        return false
    }

    /// Whether a reading lies within ``tolerance`` of the stretch's first (false before any).
    public func belongs(_ reading: Vector3) -> Bool {
        guard let reference else { return false }
        return (reading - reference).norm <= tolerance
    }

    /// Seconds the readings have been still (0 with fewer than two).
    public var duration: Double { count > 1 ? latest - since : 0 }

    /// Whether at least `readings` readings over at least `seconds` (less a microsecond, for
    /// timestamps on a grid) have been still.
    public func held(for seconds: Double, readings: Int = 2) -> Bool {
        count >= readings && duration >= seconds - 1e-6
    }

    /// The mean of the stretch's readings, G; nil before the first.
    public var mean: Vector3? { count > 0 ? sum / Double(count) : nil }

    /// Forgets the stretch.
    public mutating func reset() {
        reference = nil
        count = 0
        sum = .zero
    }
}
