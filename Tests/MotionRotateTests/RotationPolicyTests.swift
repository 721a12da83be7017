import MotionCore
import Testing

@testable import MotionRotate

/// When a reported orientation turns the screen: the debounce, what cancels it, the hold.
@Suite("Rotation policy: debounce and hold")
struct RotationPolicyTests {
    @Test("an upright orientation rotates once it has held for the debounce, at the time it settled")
    func debounce() {
        var policy = RotationPolicy(debounce: 0.5)
        policy.observe(.landscapeLeft, at: 10)
        #expect(policy.deadline == 10.5)
        #expect(policy.advance(to: 10.49) == nil)
        #expect(policy.advance(to: 11) == .rotate(.landscapeLeft, at: 10.5))
        #expect(policy.settled == .landscapeLeft)
        #expect(policy.deadline == nil)
    }

    @Test("a turn interrupted by lying flat, or a wobble back, does nothing; the same orientation again does not restart the wait")
    func cancelled() {
        var policy = RotationPolicy(debounce: 0.5)
        policy.observe(.landscapeRight, at: 0)
        policy.observe(.faceUp, at: 0.3)
        #expect(policy.deadline == nil)
        #expect(policy.advance(to: 2) == nil)

        policy.observe(.portraitUpsideDown, at: 3)
        policy.observe(.portraitUpsideDown, at: 3.4)
        #expect(policy.advance(to: 3.5) == .rotate(.portraitUpsideDown, at: 3.5))
        policy.observe(.portrait, at: 4)
        policy.observe(.portraitUpsideDown, at: 4.2)
        #expect(policy.deadline == nil, "back to the settled orientation: nothing pending")
    }

    @Test("the orientation the screen already shows settles without a rotation")
    func alreadyShown() {
        var policy = RotationPolicy(debounce: 0)
        policy.didRotate(to: .portrait)
        policy.observe(.portrait, at: 1)
        #expect(policy.advance(to: 1) == nil)
        #expect(policy.settled == .portrait)
    }

    @Test("while held, orientations settle without rotating; the release rotates to the last settled one, once")
    func hold() {
        var policy = RotationPolicy(debounce: 0.25)
        #expect(policy.setHeld(true) == nil)
        policy.observe(.landscapeLeft, at: 1)
        #expect(policy.advance(to: 1.25) == .hold(.landscapeLeft, at: 1.25))
        policy.observe(.landscapeRight, at: 2)
        #expect(policy.advance(to: 2.25) == .hold(.landscapeRight, at: 2.25))
        #expect(policy.setHeld(false) == .landscapeRight)
        policy.didRotate(to: .landscapeRight)
        #expect(policy.setHeld(true) == nil)
        #expect(policy.setHeld(false) == nil, "the screen already shows it")
    }
}
