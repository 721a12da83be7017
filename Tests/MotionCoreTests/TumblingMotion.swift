import Foundation
import MotionCore

/// A deterministic synthetic motion with known truth for the fusion tests: the device turns
/// about all three axes (sums of sinusoids, up to about 70 °/s), or only about the vertical when
/// `flatSpin`, starting face up with its axes on the reference axes (north frame: +x north).
struct TumblingMotion {
    struct Step {
        var time: Double
        /// Device → reference (Z up, X north).
        var attitude: Quaternion
        /// True rotation rate, rad/s, device frame.
        var rate: Vector3
        /// True gravity, G, device frame.
        var gravity: Vector3 { attitude.inverse.rotate(Vector3(0, 0, -1)) }
        /// A reference-frame field seen from the device.
        func field(_ earth: Vector3) -> Vector3 { attitude.inverse.rotate(earth) }
    }

    var seconds: Double
    var interval = 0.01
    var flatSpin = false
    var start = Quaternion.identity

    var steps: [Step] {
        var attitude = start
        return (0..<Int(seconds / interval)).map { i in
            let t = Double(i) * interval
            let rate = flatSpin
                ? Vector3(0, 0, 1.5 * sin(0.9 * t))
                : Vector3(1.2 * sin(0.7 * t), 1.0 * sin(1.1 * t + 1), 0.8 * sin(1.7 * t + 2))
            attitude = (attitude * Quaternion(axis: rate, angle: rate.norm * interval)).normalized
            return Step(time: t, attitude: attitude, rate: rate)
        }
    }
}
