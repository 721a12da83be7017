import Testing
import MotionCore

/// The still stretch behind the rest rate and the orientation's still path.
@Suite("Stillness")
struct StillnessTests {
    @Test("readings within the tolerance of the first extend the stretch; one beyond it starts a new one")
    func stretch() {
        var stillness = Stillness(tolerance: 0.05)
        var extended = stillness.update(Vector3(0, -1, 0), at: 0)
        #expect(!extended)
        for i in 1...10 {
            // Noise of 0.01 G and a slow drift of 0.003 G per reading stay within 0.05 G.
            extended = stillness.update(Vector3(0.003 * Double(i), -1 + (i % 2 == 0 ? 0.01 : -0.01), 0), at: Double(i) * 0.02)
            #expect(extended)
        }
        #expect(stillness.count == 11 && abs(stillness.duration - 0.2) < 1e-9)
        #expect(stillness.held(for: 0.2, readings: 3) && !stillness.held(for: 0.25))
        #expect(abs(stillness.mean!.x - 0.015) < 1e-9 && abs(stillness.mean!.y + 1) < 0.002)

        // A quarter turn: a new stretch from the new reading, its mean that reading.
        extended = stillness.update(Vector3(1, 0, 0), at: 0.3)
        #expect(!extended)
        #expect(stillness.count == 1 && stillness.duration == 0 && stillness.mean == Vector3(1, 0, 0))
        #expect(stillness.since == 0.3)
    }

    @Test("a non-finite reading or a timestamp going back ends the stretch")
    func badReadings() {
        var stillness = Stillness()
        stillness.update(Vector3(0, 0, -1), at: 1)
        stillness.update(Vector3(0, 0, -1), at: 1.5)
        #expect(stillness.duration == 0.5)
        var extended = stillness.update(Vector3(.nan, 0, -1), at: 2)
        #expect(!extended)
        #expect(stillness.count == 0 && stillness.mean == nil)
        stillness.update(Vector3(0, 0, -1), at: 3)
        extended = stillness.update(Vector3(0, 0, -1), at: 2.5)
        #expect(!extended, "time went back: a new stretch")
        #expect(stillness.count == 1 && stillness.since == 2.5)
    }
}
