import Foundation
import Testing

/// `motionctl fuse` (DESIGN.md contract) run as a user would, on a trace written by the test.
@Suite("motionctl fuse")
struct MotionCtlTests {
    static var motionctl: String {
        URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motionctl").path
    }

    @Test("a still, level trace with the field's horizontal part along +y fuses to top-north: t,qw,qx,qy,qz")
    func fuseStillTrace() async throws {
        let dir = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Face up at rest (acc +9.80665 on z), field 20 µT along device +y and 44 µT down.
        var lines = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"]
        for i in 0..<100 { lines.append("\(Double(i) / 100),0,0,0,0,0,9.80665,0,20,-44") }
        let input = dir.appendingPathComponent("still.csv").path
        let output = dir.appendingPathComponent("q.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)

        let run = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "t,qw,qx,qy,qz")
        #expect(rows.count == 101)
        // Top edge north, face up: the device +y is reference X (north), +x is −Y (east): a −90° turn
        // about Z, q = (cos 45°, 0, 0, −sin 45°) = (0.70711, 0, 0, −0.70711), up to sign.
        let last = rows.last!.split(separator: ",").map { Double($0)! }
        let sign = last[1] < 0 ? -1.0 : 1.0
        #expect(abs(sign * last[1] - 0.5.squareRoot()) < 1e-6 && abs(sign * last[4] + 0.5.squareRoot()) < 1e-6)
        #expect(abs(last[2]) < 1e-6 && abs(last[3]) < 1e-6)

        // 6D: no magnetometer needed; a trace without one and the 9D frame is refused clearly.
        let six = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output, "--frame", "xArbitraryZVertical"])
        #expect(six.status == 0)
        let noMag = dir.appendingPathComponent("nomag.csv").path
        try "t,acc_x,acc_y,acc_z\n0,0,0,9.80665\n".write(toFile: noMag, atomically: true, encoding: .utf8)
        let refused = try await Emulation.run([Self.motionctl, "fuse", "--input", noMag, "--output", output])
        #expect(refused.status != 0 && refused.stderr.contains("has no magnetometer columns"))
        let badFrame = try await Emulation.run([Self.motionctl, "fuse", "--input", input, "--output", output, "--frame", "xTrueNorth"])
        #expect(badFrame.status != 0 && badFrame.stderr.contains("--frame xTrueNorth"))
    }
}
