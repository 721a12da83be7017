import MotionCore

/// When the sensors may be read at the rest rate (``SensorDemand/resting(_:interval:)``): while
/// the accelerometer — and a convertible's base accelerometer, while that is read — has lain
/// ``Stillness`` still for ``after`` seconds; the first reading that moves ends the rest. It
/// also says when to give the code pages back (``CodePages``): once per rest, two rest readings
/// into it, when the switch to the rest rate is over. Pure: time comes from sample timestamps;
/// the pipeline acts on its decisions.
struct RestRate: Sendable {
    /// How long the accelerometer must lie still before the rest rate, seconds.
    static let after = 1.0

    /// The display accelerometer's still stretch, and a convertible's base accelerometer's.
    private var stillness = Stillness()
    private var baseStillness = Stillness()
    /// Whether the device lies still long enough to read at the rest rate.
    private(set) var atRest = false
    /// Sample time from which the code pages are given back, once per rest (nil: done).
    private var releaseCodeAt: Double?

    /// What a reading changed.
    struct Decision: Equatable, Sendable {
        /// The device came to rest or started moving: the demand is to be worked out again
        /// (then ``scheduleCodeRelease(at:wakeInterval:)``).
        var restChanged = false
        /// The rest has lasted two rest readings: give the code pages back now.
        var releaseCodePages = false
    }

    /// Follows one reading of the accelerometer or the base accelerometer. `readingBase`:
    /// whether the base accelerometer is being read (a convertible's base must lie still too).
    mutating func follow(_ sample: Sample, readingBase: Bool) -> Decision {
        if sample.kind == .baseAccelerometer {
            baseStillness.update(sample.vector, at: sample.timestamp)
        } else {
            stillness.update(sample.vector, at: sample.timestamp)
        }
        let rest = stillness.held(for: Self.after) && (!readingBase || baseStillness.held(for: Self.after))
        var decision = Decision()
        if rest, let at = releaseCodeAt, sample.timestamp >= at {
            // What motion, the clients' requests and the switch itself faulted in is not
            // needed to read a still device: the rest loop faults back only its own pages.
            releaseCodeAt = nil
            decision.releaseCodePages = true
        }
        if rest != atRest {
            atRest = rest
            decision.restChanged = true
        }
        return decision
    }

    /// After a change of rest at sample time `t` and the demand that followed it: at rest, the
    /// code pages go two readings of `wakeInterval` later (the accelerometer's interval at rest;
    /// nil: it is not read more slowly, nothing to wait for); moving, not at all.
    mutating func scheduleCodeRelease(at t: Double, wakeInterval: Double?) {
        releaseCodeAt = atRest ? wakeInterval.map { t + 2 * $0 } : nil
    }

    /// The accelerometer stopped: the next stretch starts afresh, moving.
    mutating func accelerometerStopped() {
        stillness.reset()
        atRest = false
    }

    /// The base accelerometer stopped.
    mutating func baseAccelerometerStopped() {
        baseStillness.reset()
    }
}
