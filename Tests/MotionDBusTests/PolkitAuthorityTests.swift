import Testing
@testable import MotionDBus

/// What an error in place of polkit's answer means: only polkit's own failures are refusals.
@Suite("PolkitAuthority")
struct PolkitAuthorityTests {
    @Test("NameHasNoOwner (the client left before polkit looked it up) is not polkit's absence; ServiceUnknown is")
    func subjectGoneIsNotAbsence() {
        #expect(PolkitAuthority.answer(error: "org.freedesktop.DBus.Error.NameHasNoOwner", "Could not get UID of name ':1.7': no such name") == .subjectGone)
        #expect(PolkitAuthority.answer(error: "org.freedesktop.DBus.Error.ServiceUnknown", "The name is not activatable") == .absent)
    }

    @Test("the bus's limit is no refusal (asked again); no answer is none either; polkit's own errors are refusals")
    func busErrorsAreNoRefusals() {
        let limit = "The maximum number of pending replies per connection has been reached"
        #expect(PolkitAuthority.answer(error: "org.freedesktop.DBus.Error.LimitsExceeded", limit)
                == .busy("org.freedesktop.DBus.Error.LimitsExceeded: \(limit)"))
        #expect(PolkitAuthority.answer(error: "org.freedesktop.DBus.Error.NoReply", "Did not receive a reply")
                == .unanswered("org.freedesktop.DBus.Error.NoReply: Did not receive a reply"))
        #expect(PolkitAuthority.answer(error: "org.freedesktop.PolicyKit1.Error.Failed", "Action is not registered")
                == .denied("polkit failed: org.freedesktop.PolicyKit1.Error.Failed: Action is not registered"))
    }
}
