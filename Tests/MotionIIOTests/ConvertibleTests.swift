import Foundation
import Testing
import MotionClient
import MotionCore
import MotionProtocol

/// A convertible through the daemon: a fold replayed from a trace with a base accelerometer,
/// seen on the `hinge` and `posture` streams by a socket client and through MotionClient.
@Suite("Convertible: hinge and posture through motiond", .serialized)
struct ConvertibleTests {
    /// The way out of the simulated fold (closed → 100° → flat → lifted → stand → tablet),
    /// 0.6 s a stage, 1.2 s holds, as a trace at 50 Hz with `base_acc_*` columns.
    static func foldTrace(in directory: URL) throws -> (path: String, stops: [Double]) {
        let steps = Array(SimulatedConvertible.Scenario.fold(turn: 0.6, hold: 1.2).prefix(6))
        var machine = SimulatedConvertible(steps: steps)
        let g = PhysicalConstants.standardGravity
        var text = "t,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z\n"
        for i in 0..<Int(machine.duration * 50) + 50 {
            let t = Double(i) / 50
            let r = machine.readings(at: t)
            // SI and the inertial-navigation sign: −G values × g.
            let (d, b) = (r.display * -g, r.base * -g)
            text += "\(t),\(d.x),\(d.y),\(d.z),\(b.x),\(b.y),\(b.z)\n"
        }
        let path = directory.appendingPathComponent("fold.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, steps.map(\.hinge))
    }

    @Test("a fold replayed: the hinge angle reaches each stop, the postures come in order, to a socket client and MotionClient",
          .timeLimit(.minutes(1)))
    func foldReplayed() async throws {
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (trace, stops) = try Self.foldTrace(in: directory)
        let daemon = try ServedDaemon(["--source", "replay:\(trace)", "--no-config"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()

        let manager = MotionManager(socketPath: daemon.socket)
        #expect(manager.isHingeAvailable, "both accelerometers are in the trace")
        let queue = MotionClientTests.queue("convertible")
        let angles = MotionClientTests.Recorder<HingeAngle>(), postures = MotionClientTests.Recorder<Posture>()
        let observations = [
            manager.observeHinge(interval: 0.02, on: queue) { angles.add($0, nil, expected: queue) },
            manager.observePosture(on: queue) { postures.add($0, nil, expected: queue) },
        ]
        defer { observations.forEach { $0.cancel() } }
        try await client.send(#"{"op":"subscribe","id":1,"stream":"hinge","interval":0.02}"#)
        try await client.send(#"{"op":"subscribe","id":2,"stream":"posture"}"#)
        let messages = try await client.collect(for: 13)

        let hinge = messages.filter { $0["type"] as? String == "hinge" }
        let measured = hinge.compactMap { m -> (Double, String)? in
            guard let angle = m["angle"] as? Double, let accuracy = m["accuracy"] as? String else { return nil }
            return (angle, accuracy)
        }
        #expect(measured.count == hinge.count && hinge.count > 200, "\(hinge.count) hinge values")
        // Every stop after the first is reached, measured at rest (the start may pass before
        // the client subscribed).
        for stop in stops.dropFirst() {
            #expect(measured.contains { abs($0.0 - stop) < 3 && $0.1 == "high" }, "no high-accuracy value within 3° of \(stop)°")
        }
        let seen = messages.filter { $0["type"] as? String == "posture" }.compactMap { $0["posture"] as? String }
        #expect(Array(seen.drop { $0 == "closed" }) == ["laptop", "flat", "stand", "tablet"], "\(seen)")
        #expect(await MotionClientTests.poll(timeout: 5) { postures.values.last == .tablet }, "\(postures.values)")
        #expect(angles.values.count > 100 && abs((angles.values.last?.degrees ?? 0) - 360) < 3, "\(angles.values.suffix(3))")
    }
}
