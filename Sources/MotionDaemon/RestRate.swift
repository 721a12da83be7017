import MotionCore
import MotionIIO

/// When the sensors may be read at the rest rate (``SensorDemand/resting(_:interval:)``): while
/// every sensor that decides it and is being read (``deciding``: the accelerometer, a
/// convertible's base accelerometer, the gyroscope that a compass claim reads) has lain
/// ``Stillness`` still for ``after`` seconds; the first reading of any of them that moves ends
/// the rest. It also says when to give the code pages back (``CodePages``): two rest readings
/// into a rest, when the switch to the rest rate is over, and two rest readings after a
/// subscriber leaves during it, at most every ``releaseSpacing`` seconds. Pure: time comes
/// from sample timestamps; the pipeline acts on its decisions.
struct RestRate: Sendable {
    /// How long the sensors must lie still before the rest rate, seconds.
    static let after = 1.0

    /// The sensors whose stillness decides the rest while they are read, each with how far a
    /// reading may lie from its stretch's first and still be still: 0.05 G for the
    /// accelerometers (a 3° tilt), 0.05 rad/s (2.9°/s) for the gyroscope — above a laptop
    /// gyroscope's noise, below any turn a user makes. The gyroscope catches what the
    /// accelerometer cannot: a laptop turned flat on a table, which changes only the heading.
    static let deciding: [SensorKind: Double] = [.accelerometer: 0.05, .baseAccelerometer: 0.05, .gyroscope: 0.05]

    /// Each deciding sensor's still stretch.
    private var stillness = RestRate.deciding.mapValues { Stillness(tolerance: $0) }
    /// Whether the device lies still long enough to read at the rest rate.
    private(set) var atRest = false
    /// Sample time from which the code pages are given back (nil: nothing to give back).
    private var releaseCodeAt: Double?
    /// Sample time they were last given back.
    private var releasedAt = -Double.infinity
    /// The shortest time between two releases, seconds: reading /proc/self/smaps takes
    /// milliseconds, and a client that comes and goes (a status every second) would otherwise
    /// have the same code given back and faulted in again each time.
    static let releaseSpacing = 10.0

    /// What a reading changed.
    struct Decision: Equatable, Sendable {
        /// The device came to rest or started moving: the demand is to be worked out again
        /// (then ``scheduleCodeRelease(at:wakeInterval:)``).
        var restChanged = false
        /// The rest has lasted two rest readings: give the code pages back now.
        var releaseCodePages = false
    }

    /// Follows one reading of a deciding sensor (others change nothing). `reading`: the sensors
    /// being read; the accelerometer must be among them, and each deciding one among them must
    /// lie still.
    mutating func follow(_ sample: Sample, reading: some Collection<SensorKind>) -> Decision {
        guard stillness[sample.kind] != nil else { return Decision() }
        stillness[sample.kind]?.update(sample.vector, at: sample.timestamp)
        let rest = reading.contains(.accelerometer)
            && stillness.allSatisfy { kind, still in !reading.contains(kind) || still.held(for: Self.after) }
        var decision = Decision()
        if rest, let at = releaseCodeAt, sample.timestamp >= at {
            // What motion, the clients' requests and the switch itself faulted in is not
            // needed to read a still device: the rest loop faults back only its own pages.
            releaseCodeAt = nil
            releasedAt = sample.timestamp
            decision.releaseCodePages = true
        }
        if rest != atRest {
            atRest = rest
            decision.restChanged = true
        }
        return decision
    }

    /// The events of a burst worth handling: at rest, a buffered sensor's batch holds scans
    /// that tell the fusion and the detectors nothing its newest one does not, and those are
    /// left out, so a batched sensor at rest costs what a polled one does (one reading per
    /// rest interval). Left out: a scan that a newer one of its kind follows in the burst, of
    /// a sensor read at the rest rate (`resting`: those the request gives a rest interval),
    /// that lies within its deciding sensor's still stretch or is the magnetometer's (a still
    /// device's heading follows its newest scan) — until the burst's first deciding scan that
    /// leaves its stretch, which ends the rest: it and everything after it are kept. Light and
    /// proximity readings, availability and anything while moving are all kept.
    func worthHandling(_ events: [SourceEvent], resting: some Collection<SensorKind>) -> [SourceEvent] {
        guard atRest, events.count > 1 else { return events }
        // Each kind in the burst, looked up once (a batch holds a kind or three, a scan each):
        // whether it rests, its stretch if it decides, and the index of its newest sample.
        var kinds: [(kind: SensorKind, rests: Bool, stretch: Stillness?, newest: Int)] = []
        for (index, event) in events.enumerated() {
            guard case .sample(let sample) = event else { continue }
            if let known = kinds.firstIndex(where: { $0.kind == sample.kind }) {
                kinds[known].newest = index
            } else {
                kinds.append((sample.kind, resting.contains(sample.kind), stillness[sample.kind], index))
            }
        }
        var kept: [SourceEvent] = []
        var moving = false
        for (index, event) in events.enumerated() {
            if !moving, case .sample(let sample) = event, let kind = kinds.first(where: { $0.kind == sample.kind }), kind.rests {
                let still = kind.stretch.map { $0.belongs(sample.vector) } ?? (sample.kind == .magnetometer)
                if !still && kind.stretch != nil { moving = true }
                if still && kind.newest != index { continue }
            }
            kept.append(event)
        }
        return kept
    }

    /// After a change of rest at sample time `t` and the demand that followed it, or a
    /// subscriber leaving: at rest, the code pages go two readings of `wakeInterval` later (the
    /// accelerometer's interval at rest; nil: it is not read more slowly, nothing to wait for),
    /// and not within ``releaseSpacing`` of the last release; moving, not at all.
    mutating func scheduleCodeRelease(at t: Double, wakeInterval: Double?) {
        releaseCodeAt = atRest ? wakeInterval.map { max(t + 2 * $0, releasedAt + Self.releaseSpacing) } : nil
    }

    /// A sensor stopped being read: its next stretch starts afresh, and without the
    /// accelerometer the device is taken to be moving.
    mutating func stopped(_ kind: SensorKind) {
        stillness[kind]?.reset()
        if kind == .accelerometer { atRest = false }
    }
}
