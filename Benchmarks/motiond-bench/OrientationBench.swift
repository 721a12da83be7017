import ArgumentParser
import Foundation
import MotionCore

/// The orientation detector's latency and stability, measured on synthetic traces from the
/// simulated IMU (sensor noise, gyroscope bias, hand tremor) run through the daemon's engine and
/// detectors at 50 and 100 Hz.
struct OrientationBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientation-bench",
        abstract: "Measure orientation latency after settling, and spurious changes near boundaries and in slow tilts.")

    @Option(help: "Hand tremor amplitude, degrees (at 8 Hz).")
    var tremor = 0.5

    @Option(help: "Seconds held near each boundary, and of slow tilting.")
    var seconds = 60.0

    @Flag(help: "Feed the accelerometer only: the path of a device without a gyroscope.")
    var withoutGyroscope = false

    /// Face up, turned `phi` degrees in the screen plane (toward landscapeLeft), then tipped up
    /// `tilt` degrees from flat (90 = upright).
    static func pose(phi: Double, tilt: Double) -> Quaternion {
        Quaternion(axis: Vector3(1, 0, 0), angle: tilt * .pi / 180) * Quaternion(axis: Vector3(0, 0, 1), angle: phi * .pi / 180)
    }

    /// Every orientation change the pipeline reports for `script` sampled at `rate` Hz.
    func changes(_ script: MotionScript, rate: Double, duration: Double) -> [(time: Double, orientation: DeviceOrientation)] {
        var settings = SimulatedIMU.Settings()
        settings.tremorAmplitude = tremor * .pi / 180
        var imu = SimulatedIMU(script: script, settings: settings)
        var engine = MotionEngine()
        var detectors = MotionEventDetectors()
        var out: [(Double, DeviceOrientation)] = []
        for i in 0..<Int(duration * rate) {
            let t = Double(i) / rate
            for kind in withoutGyroscope ? [SensorKind.accelerometer] : [.gyroscope, .accelerometer] {
                let sample = imu.sample(kind, at: t, timestamp: t)
                engine.update(sample)
                for case .orientation(let o, let at) in detectors.update(sample, engine: engine) { out.append((at, o)) }
            }
        }
        return out
    }

    func run() throws {
        typealias Step = MotionScript.Step
        let poses: [(DeviceOrientation, Quaternion)] = [
            (.portrait, Self.pose(phi: 0, tilt: 90)), (.landscapeLeft, Self.pose(phi: 90, tilt: 90)),
            (.portraitUpsideDown, Self.pose(phi: 180, tilt: 90)), (.landscapeRight, Self.pose(phi: -90, tilt: 90)),
            (.portrait, Self.pose(phi: 0, tilt: 75)), (.faceUp, Self.pose(phi: 0, tilt: 0)),
            (.faceDown, Quaternion(axis: Vector3(1, 0, 0), angle: .pi)), (.landscapeLeft, Self.pose(phi: 90, tilt: 80)),
        ]
        print("Orientation detector on the simulated IMU (noise, bias, \(tremor)° tremor at 8 Hz), engine + detectors\(withoutGyroscope ? ", accelerometer only" : ""):")
        print("| rate | transitions | reported right | latency after settling: median / max | spurious near boundaries | spurious in slow tilts |")
        print("|---|---|---|---|---|---|")
        for rate in [50.0, 100.0] {
            // Latency: each pose reached by a 0.8 s turn, then held 2 s; settled = the turn's end.
            let steps = [Step(name: "start", pose: Self.pose(phi: 0, tilt: 0), turn: 0, hold: 2)]
                + poses.map { Step(name: $0.0.rawValue, pose: $0.1, turn: 0.8, hold: 2) }
            let script = MotionScript(steps: steps)
            let seen = changes(script, rate: rate, duration: script.duration)
            var latencies: [Double] = []
            var settled = 2.0
            for (expected, _) in poses {
                settled += 0.8
                if let hit = seen.first(where: { $0.orientation == expected && $0.time >= settled - 0.8 && $0.time < settled + 2 }) {
                    latencies.append(hit.time - settled)
                }
                settled += 2
            }
            latencies.sort()
            // Near boundaries: held still inside a state, 5° from the 45° diagonal or 5° above the
            // upright/tilt band, after the first decision.
            var spuriousNear = 0
            for (phi, tilt) in [(40.0, 90.0), (-40.0, 90.0), (130.0, 90.0), (0.0, 60.0)] {
                let hold = MotionScript(steps: [Step(name: "hold", pose: Self.pose(phi: phi, tilt: tilt), turn: 0, hold: seconds)])
                spuriousNear += max(0, changes(hold, rate: rate, duration: seconds).count - 1)
            }
            // Slow tilts in portrait: between upright and 60° from flat, wobbling ±20° in the plane, 5 s per sweep.
            let sweeps = (0..<Int(seconds / 5)).map { i in
                Step(name: "tilt", pose: Self.pose(phi: i.isMultiple(of: 2) ? 20 : -20, tilt: i.isMultiple(of: 2) ? 60 : 90), turn: 5, hold: 0)
            }
            let tilts = MotionScript(steps: [Step(name: "start", pose: Self.pose(phi: 0, tilt: 90), turn: 0, hold: 1)] + sweeps)
            let spuriousTilt = max(0, changes(tilts, rate: rate, duration: tilts.duration).count - 1)
            let median = latencies.isEmpty ? Double.nan : latencies[latencies.count / 2]
            print(String(format: "| %.0f Hz | %d | %d | %.0f ms / %.0f ms | %d | %d |", rate, poses.count, latencies.count,
                         median * 1000, (latencies.last ?? .nan) * 1000, spuriousNear, spuriousTilt))
        }
    }
}
