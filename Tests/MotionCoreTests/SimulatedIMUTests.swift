import Foundation
import Testing
import MotionCore

/// Hand-derived readings per pose name.
///
/// Gravity (accelerometer, gravity-vector sign): the device axis pointing up reads −1.
///   faceUp: +z up → (0, 0, −1); portrait: +y up → (0, −1, 0); landscapeLeft: +x up → (−1, 0, 0);
///   landscapeRight: −x up → (1, 0, 0); portraitUpsideDown: −y up → (0, 1, 0); faceDown: −z up → (0, 0, 1).
///
/// Earth field e = (20, 0, −44) µT in the reference frame, seen in the device frame as Rᵀe:
///   faceUp: identity → (20, 0, −44)
///   portrait = Rx(90°): Rx(−90°)(x, y, z) = (x, z, −y) → (20, −44, 0)
///   landscapeLeft = Rx(90°)Rz(90°): Rz(−90°)(x, y, z) = (y, −x, z) applied to (20, −44, 0) → (−44, −20, 0)
///   portraitUpsideDown = Rx(90°)Rz(180°): Rz(180°)(x, y, z) = (−x, −y, z) → (−20, 44, 0)
///   landscapeRight = Rx(90°)Rz(−90°): Rz(90°)(x, y, z) = (−y, x, z) → (44, 20, 0)
///   faceDown = Rx(180°): (x, −y, −z) → (20, 0, 44)
private let gravityByPose: [String: Vector3] = [
    "rest": Vector3(0, 0, -1), "faceUp": Vector3(0, 0, -1),
    "portrait": Vector3(0, -1, 0), "shake": Vector3(0, -1, 0),
    "landscapeLeft": Vector3(-1, 0, 0), "landscapeRight": Vector3(1, 0, 0),
    "portraitUpsideDown": Vector3(0, 1, 0), "faceDown": Vector3(0, 0, 1),
]
private let fieldByPose: [String: Vector3] = [
    "rest": Vector3(20, 0, -44), "faceUp": Vector3(20, 0, -44),
    "portrait": Vector3(20, -44, 0), "shake": Vector3(20, -44, 0),
    "landscapeLeft": Vector3(-44, -20, 0), "landscapeRight": Vector3(44, 20, 0),
    "portraitUpsideDown": Vector3(-20, 44, 0), "faceDown": Vector3(20, 0, 44),
]

/// Rodrigues rotation of `v` by `angle` about the unit vector `axis` (independent of Quaternion).
private func rodrigues(_ v: Vector3, axis n: Vector3, angle: Double) -> Vector3 {
    v * cos(angle) + n.cross(v) * sin(angle) + n * (n.dot(v) * (1 - cos(angle)))
}

/// Start time, turn and hold of every step, found by walking the script.
private struct Interval {
    var index: Int
    var name: String
    var start: Double
    var turn: Double
    var hold: Double
    var holdStart: Double { start + turn }
    var end: Double { start + turn + hold }
}

private func intervals(_ script: MotionScript) -> [Interval] {
    var t = 0.0
    var out: [Interval] = []
    for (i, step) in script.steps.enumerated() {
        out.append(Interval(index: i, name: step.name, start: t, turn: step.turn, hold: step.hold))
        t += step.turn + step.hold
    }
    return out
}

@Suite("MotionScript")
struct MotionScriptTests {
    let script = MotionScript.standard
    let imu = SimulatedIMU()

    @Test("duration is the sum of turns and holds")
    func duration() {
        // 2 + (0.8+2)·4 + (0.8+1) + 1.5 + 1 + (0.8+2) + (1+2) + 1 = 2 + 11.2 + 1.8 + 1.5 + 1 + 2.8 + 3 + 1 = 24.3
        #expect(isClose(script.duration, 24.3, tolerance: 1e-12))
        #expect(script.steps.count == 11)
    }

    @Test("every hold has zero rotation rate and the right gravity and field")
    func holds() {
        var checked = 0
        for step in intervals(script) where step.hold > 0 {
            for fraction in [0.1, 0.5, 0.9] {
                let t = step.holdStart + fraction * step.hold
                let state = script.state(at: t)
                #expect(state.step == step.name, "t = \(t)")
                #expect(state.rotationRate == .zero, "\(step.name) at t = \(t)")
                #expect(imu.idealReading(.gyroscope, in: state) == .zero)
                let expectedGravity = gravityByPose[step.name]! + state.userAcceleration
                #expect(isClose(imu.idealReading(.accelerometer, in: state), expectedGravity, tolerance: 1e-9),
                        "\(step.name) at t = \(t): \(imu.idealReading(.accelerometer, in: state))")
                #expect(isClose(imu.idealReading(.magnetometer, in: state), fieldByPose[step.name]!, tolerance: 1e-9),
                        "\(step.name) at t = \(t): \(imu.idealReading(.magnetometer, in: state))")
                if step.name != "shake" {
                    #expect(state.userAcceleration == .zero)
                }
                checked += 1
            }
        }
        // 10 steps have a hold (the final faceUp has hold 0), 3 instants each.
        #expect(checked == 30)
    }

    @Test("named hold times: hand-computed instants")
    func namedHoldTimes() {
        // rest [0, 2), portrait hold [2.8, 4.8), landscapeLeft hold [5.6, 7.6),
        // portraitUpsideDown hold [8.4, 10.4), landscapeRight hold [11.2, 13.2),
        // faceUp hold [18.3, 20.3), faceDown hold [21.3, 23.3).
        let cases: [(Double, String, Vector3)] = [
            (1.0, "rest", Vector3(0, 0, -1)),
            (3.8, "portrait", Vector3(0, -1, 0)),
            (6.6, "landscapeLeft", Vector3(-1, 0, 0)),
            (9.4, "portraitUpsideDown", Vector3(0, 1, 0)),
            (12.2, "landscapeRight", Vector3(1, 0, 0)),
            (19.3, "faceUp", Vector3(0, 0, -1)),
            (22.3, "faceDown", Vector3(0, 0, 1)),
        ]
        for (t, name, gravity) in cases {
            let state = script.state(at: t)
            #expect(state.step == name)
            #expect(state.rotationRate == .zero)
            #expect(isClose(imu.idealReading(.accelerometer, in: state), gravity, tolerance: 1e-9), "\(name)")
        }
    }

    @Test("magnetometer at rest face up reads the earth field")
    func magnetometerAtRest() {
        let state = script.state(at: 1.0)
        #expect(isClose(imu.idealReading(.magnetometer, in: state), Vector3(20, 0, -44), tolerance: 1e-12))
    }

    @Test("turn rates: angle / duration about the expected axis")
    func turnRates() {
        // Hand table (step index → expected body rate):
        //   1 faceUp → portrait:              +90° about x over 0.8 s → (π/2/0.8, 0, 0) = (1.9634954084936207, 0, 0)
        //   2 portrait → landscapeLeft:       +90° about z over 0.8 s → (0, 0, 1.9634954084936207)
        //   3 landscapeLeft → upsideDown:     +90° about z
        //   4 upsideDown → landscapeRight:    +90° about z
        //   5 landscapeRight → portrait:      +90° about z
        //   8 portrait → faceUp:              −90° about x over 0.8 s → (−1.9634954084936207, 0, 0)
        //   9 faceUp → faceDown:              180° about x over 1 s → (π, 0, 0)
        //  10 faceDown → faceUp:              180° about ±x over 1 s → magnitude π
        let r = 1.9634954084936207
        let expected: [Int: Vector3?] = [
            1: Vector3(r, 0, 0), 2: Vector3(0, 0, r), 3: Vector3(0, 0, r), 4: Vector3(0, 0, r),
            5: Vector3(0, 0, r), 8: Vector3(-r, 0, 0), 9: Vector3(Double.pi, 0, 0), 10: nil,
        ]
        let turns = intervals(script).filter { $0.turn > 0 }
        #expect(turns.map(\.index) == [1, 2, 3, 4, 5, 8, 9, 10])
        for step in turns {
            for fraction in [0.1, 0.5, 0.9] {
                let t = step.start + fraction * step.turn
                let state = script.state(at: t)
                #expect(state.step == step.name)
                if let rate = expected[step.index]! {
                    #expect(isClose(state.rotationRate, rate, tolerance: 1e-9), "step \(step.index): \(state.rotationRate)")
                } else {
                    // 180°: the axis sign is a free choice, the magnitude is π / 1 s and the axis is ±x.
                    #expect(isClose(state.rotationRate.norm, .pi, tolerance: 1e-9))
                    #expect(isClose(abs(state.rotationRate.x), .pi, tolerance: 1e-9))
                }
                #expect(imu.idealReading(.gyroscope, in: state) == state.rotationRate)
            }
        }
    }

    @Test("the faceUp → portrait turn passes through 45° halfway")
    func turnMidpoint() {
        // Turn runs over [2.0, 2.8); at 2.4 the attitude is Rx(45°), so gravity in the device frame is
        // Rx(−45°)(0, 0, −1) = (0, −sin 45°, −cos 45°).
        let h = 0.5.squareRoot()
        let state = script.state(at: 2.4)
        #expect(state.step == "portrait")
        #expect(isClose(imu.idealReading(.accelerometer, in: state), Vector3(0, -h, -h), tolerance: 1e-9))
    }

    @Test("integrating the gyro through the whole script reproduces every held pose")
    func integrateGyro() {
        // Track the device-frame gravity g and earth field m: for body rate ω, a fixed reference vector
        // seen in the device frame turns by −ω dt each step. Rates are sampled at mid-step.
        let dt = 0.001
        let steps = Int((24.3 / dt).rounded())
        var g = Vector3(0, 0, -1)
        var m = Vector3(20, 0, -44)
        let checkpoints: [Int: String] = [
            3800: "portrait", 6600: "landscapeLeft", 9400: "portraitUpsideDown", 12200: "landscapeRight",
            14500: "portrait", 19300: "faceUp", 22300: "faceDown", steps: "faceUp",
        ]
        for k in 0..<steps {
            if let name = checkpoints[k] {
                #expect(isClose(g, gravityByPose[name]!, tolerance: 1e-6), "\(name) at step \(k): g = \(g)")
                #expect(isClose(m, fieldByPose[name]!, tolerance: 1e-4), "\(name) at step \(k): m = \(m)")
            }
            let omega = script.state(at: (Double(k) + 0.5) * dt).rotationRate
            let rate = omega.norm
            if rate > 0 {
                g = rodrigues(g, axis: omega / rate, angle: -rate * dt)
                m = rodrigues(m, axis: omega / rate, angle: -rate * dt)
            }
        }
        #expect(isClose(g, Vector3(0, 0, -1), tolerance: 1e-6), "end of loop: g = \(g)")
        #expect(isClose(m, Vector3(20, 0, -44), tolerance: 1e-4), "end of loop: m = \(m)")
    }

    @Test("the shake step has user acceleration along x with the scripted amplitude")
    func shake() {
        // Shake hold starts at 2 + 2.8·4 + 1.8 = 15.0 s and lasts 1.5 s; amplitude 2 G at 4 Hz.
        // At 1/16 s: sin(2π·4/16) = sin(π/2) = 1 → +2 G; at 3/16 s: sin(3π/2) = −1 → −2 G;
        // at 1/8 s: sin(π) = 0.
        let peak = script.state(at: 15.0 + 1.0 / 16)
        #expect(peak.step == "shake")
        #expect(peak.rotationRate == .zero)
        #expect(isClose(peak.userAcceleration, Vector3(2, 0, 0), tolerance: 1e-9))
        // Measured = gravity in portrait (0, −1, 0) + user (2, 0, 0).
        #expect(isClose(imu.idealReading(.accelerometer, in: peak), Vector3(2, -1, 0), tolerance: 1e-9))
        let trough = script.state(at: 15.0 + 3.0 / 16)
        #expect(isClose(trough.userAcceleration, Vector3(-2, 0, 0), tolerance: 1e-9))
        let zero = script.state(at: 15.0 + 1.0 / 8)
        #expect(isClose(zero.userAcceleration, .zero, tolerance: 1e-9))
        // The amplitude over the hold never exceeds 2 G and stays on x.
        var peakSeen = 0.0
        for i in 0..<150 {
            let s = script.state(at: 15.0 + (Double(i) + 0.5) * 0.01)
            #expect(s.step == "shake")
            #expect(s.userAcceleration.y == 0 && s.userAcceleration.z == 0)
            peakSeen = max(peakSeen, abs(s.userAcceleration.x))
        }
        #expect(peakSeen <= 2 + 1e-12 && peakSeen > 1.99)
        // No user acceleration in the portrait holds around the shake.
        #expect(script.state(at: 14.5).userAcceleration == .zero)
        #expect(script.state(at: 17.0).userAcceleration == .zero)
    }

    @Test("the script loops", arguments: [0.3, 2.4, 3.3, 6.0, 15.1, 20.8, 23.9])
    func loops(t: Double) {
        for shift in [24.3, 2 * 24.3, -24.3] {
            let a = script.state(at: t)
            let b = script.state(at: t + shift)
            #expect(a.step == b.step)
            #expect(isSameRotation(a.attitude, b.attitude, tolerance: 1e-9))
            #expect(isClose(a.rotationRate, b.rotationRate, tolerance: 1e-9))
            #expect(isClose(a.userAcceleration, b.userAcceleration, tolerance: 1e-9))
        }
    }

    @Test("negative times wrap into the script")
    func negativeTime() {
        // −0.5 s is 23.8 s into the loop: the faceDown → faceUp turn.
        let state = script.state(at: -0.5)
        #expect(state.step == "faceUp")
        #expect(isClose(state.rotationRate.norm, .pi, tolerance: 1e-9))
    }

    @Test("a custom single-step script")
    func customScript() {
        let custom = MotionScript(steps: [
            MotionScript.Step(name: "spin", pose: Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2), turn: 2, hold: 1),
            MotionScript.Step(name: "back", pose: .identity, turn: 1, hold: 1),
        ])
        // duration = 2 + 1 + 1 + 1 = 5
        #expect(custom.duration == 5)
        // Turning π/2 over 2 s about +z: rate π/4 ≈ 0.7853981633974483 rad/s.
        let s = custom.state(at: 1)
        #expect(s.step == "spin")
        #expect(isClose(s.rotationRate, Vector3(0, 0, 0.7853981633974483), tolerance: 1e-12))
        // Back over 1 s: −π/2 rad/s about z.
        #expect(isClose(custom.state(at: 3.5).rotationRate, Vector3(0, 0, -1.5707963267948966), tolerance: 1e-12))
        #expect(custom.state(at: 4.5).rotationRate == .zero)
    }
}

@Suite("SimulatedIMU")
struct SimulatedIMUTests {
    private func run(_ imu: inout SimulatedIMU, count: Int) -> [Sample] {
        var out: [Sample] = []
        for i in 0..<count {
            let t = Double(i) * 0.02
            for kind in [SensorKind.gyroscope, .accelerometer, .magnetometer] {
                out.append(imu.sample(kind, at: t, timestamp: 1000 + t))
            }
        }
        return out
    }

    @Test("default settings")
    func defaults() {
        let s = SimulatedIMU.Settings()
        #expect(s.gyroscopeBias == Vector3(0.004, -0.003, 0.002))
        #expect(s.earthField == Vector3(20, 0, -44))
        #expect(s.hardIron == Vector3(6, -4, 3))
        #expect(s.accelerometerNoise == 0.002)
        #expect(s.gyroscopeNoise == 0.002)
        #expect(s.magnetometerNoise == 0.3)
    }

    @Test("same settings produce identical samples; a different seed differs")
    func determinism() {
        var a = SimulatedIMU(), b = SimulatedIMU()
        let sa = run(&a, count: 300), sb = run(&b, count: 300)
        #expect(sa == sb)
        var settings = SimulatedIMU.Settings()
        settings.seed = 1
        var c = SimulatedIMU(settings: settings)
        let sc = run(&c, count: 300)
        #expect(sa != sc)
        #expect(sa.map(\.kind) == sc.map(\.kind))
        #expect(sa.map(\.timestamp) == sc.map(\.timestamp))
        // Every single reading differs (continuous noise), not just a few.
        #expect(zip(sa, sc).allSatisfy { $0.vector != $1.vector })
    }

    @Test("samples carry the requested kind and timestamp")
    func sampleFields() {
        var imu = SimulatedIMU()
        let s = imu.sample(.magnetometer, at: 1.0, timestamp: 42.5)
        #expect(s.kind == .magnetometer)
        #expect(s.timestamp == 42.5)
    }

    @Test("noise-free settings reproduce the ideal readings plus bias and hard iron")
    func noiseFree() {
        var settings = SimulatedIMU.Settings()
        settings.accelerometerNoise = 0
        settings.gyroscopeNoise = 0
        settings.magnetometerNoise = 0
        var imu = SimulatedIMU(settings: settings)
        // At rest face up (t = 1 s): acc (0, 0, −1); gyro = bias; mag = (20, 0, −44) + (6, −4, 3) = (26, −4, −41).
        #expect(imu.sample(.accelerometer, at: 1, timestamp: 0).vector == Vector3(0, 0, -1))
        #expect(imu.sample(.gyroscope, at: 1, timestamp: 0).vector == Vector3(0.004, -0.003, 0.002))
        #expect(isClose(imu.sample(.magnetometer, at: 1, timestamp: 0).vector, Vector3(26, -4, -41)))
        // Portrait hold (t = 3.8 s): acc (0, −1, 0).
        #expect(isClose(imu.sample(.accelerometer, at: 3.8, timestamp: 0).vector, Vector3(0, -1, 0), tolerance: 1e-9))
    }

    @Test("noisy means at rest approach the configured bias, gravity and field")
    func noisyMeans() {
        var imu = SimulatedIMU()
        let n = 2000
        var gyro = Vector3.zero, acc = Vector3.zero, mag = Vector3.zero
        var gyroSquares = Vector3.zero
        for i in 0..<n {
            let t = Double(i) * 0.0009   // 0 … 1.8 s, inside the 2 s rest hold
            let g = imu.sample(.gyroscope, at: t, timestamp: t).vector
            gyro = gyro + g
            gyroSquares = gyroSquares + Vector3(g.x * g.x, g.y * g.y, g.z * g.z)
            acc = acc + imu.sample(.accelerometer, at: t, timestamp: t).vector
            mag = mag + imu.sample(.magnetometer, at: t, timestamp: t).vector
        }
        gyro = gyro / Double(n); acc = acc / Double(n); mag = mag / Double(n)
        // Gyro: σ = 0.002 rad/s, SE = 0.002/√2000 ≈ 4.47e-5; tolerance 5 SE ≈ 2.24e-4 (bias components are ≥ 0.002).
        #expect(isClose(gyro, Vector3(0.004, -0.003, 0.002), tolerance: 2.24e-4), "gyro mean \(gyro)")
        // Accelerometer: σ = 0.002 G, same SE → (0, 0, −1) within 2.24e-4.
        #expect(isClose(acc, Vector3(0, 0, -1), tolerance: 2.24e-4), "acc mean \(acc)")
        // Magnetometer: σ = 0.3 µT, SE = 0.3/√2000 ≈ 0.00671; tolerance 5 SE ≈ 0.0335.
        // Expected (20, 0, −44) + hard iron (6, −4, 3) = (26, −4, −41).
        #expect(isClose(mag, Vector3(26, -4, -41), tolerance: 0.0335), "mag mean \(mag)")
        // Gyro standard deviation ≈ σ = 0.002: SE of std ≈ σ/√(2n) = 0.002/√4000 ≈ 3.16e-5; 5 SE ≈ 1.6e-4.
        let variance = gyroSquares / Double(n) - Vector3(gyro.x * gyro.x, gyro.y * gyro.y, gyro.z * gyro.z)
        for axis in 0..<3 {
            #expect(abs(variance[axis].squareRoot() - 0.002) < 1.6e-4, "gyro std axis \(axis)")
        }
    }

    @Test("hand tremor: the gyroscope explains the trembling attitude the accelerometer sees")
    func tremor() {
        var settings = SimulatedIMU.Settings()
        (settings.tremorAmplitude, settings.gyroscopeBias, settings.gyroscopeNoise, settings.accelerometerNoise) = (2 * .pi / 180, .zero, 0, 0)
        let script = MotionScript(steps: [MotionScript.Step(name: "portrait", pose: MotionScript.Pose.portrait, turn: 0, hold: 10)])
        var imu = SimulatedIMU(script: script, settings: settings)
        var attitude = MotionScript.Pose.portrait
        var largest = 0.0
        for i in 1...1000 { // 1 s at 1 kHz
            let t = Double(i) / 1000
            let rate = imu.sample(.gyroscope, at: t - 0.0005, timestamp: t).vector // midpoint of the step
            attitude = (attitude * Quaternion(axis: rate, angle: rate.norm / 1000)).normalized
            let measured = imu.sample(.accelerometer, at: t, timestamp: t).vector
            let predicted = attitude.inverse.rotate(Vector3(0, 0, -1))
            largest = max(largest, acos(min(1, measured.dot(predicted))) * 180 / .pi)
        }
        // The tremor tilts gravity by up to 2°; integration error stays far below that.
        #expect(largest < 0.05, "\(largest)°")
        #expect(imu.sample(.accelerometer, at: 1.0 / 32, timestamp: 0).vector != MotionScript.Pose.portrait.inverse.rotate(Vector3(0, 0, -1)))
    }
}

