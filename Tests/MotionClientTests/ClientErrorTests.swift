import MotionCore
import MotionProtocol
import Testing

@testable import MotionClient

/// The errors handlers get: an error reply of the daemon as the client's error, and which of
/// them the manager gives up on (no retry) rather than waits out.
@Suite("MotionClientError")
struct ClientErrorTests {
    @Test("access and frame refusals keep their meaning; any other reply keeps its code and message")
    func fromReplies() {
        #expect(MotionClientError(ProtocolError(.accessDenied, "not in group motiond")) == .accessDenied("not in group motiond"))
        #expect(MotionClientError(ProtocolError(.frameUnavailable, "no magnetometer")) == .frameUnavailable("no magnetometer"))
        #expect(MotionClientError(ProtocolError(.unknownStream, "no stream 'x'")) == .daemon(.unknownStream, "no stream 'x'"))
    }

    @Test("an unreachable daemon or an unavailable sensor may come back; refusals and mismatches do not")
    func permanence() {
        #expect(!MotionClientError.daemonUnreachable("no socket").isPermanent)
        #expect(!MotionClientError.sensorUnavailable(.gyroscope, "unplugged").isPermanent)
        #expect(MotionClientError.accessDenied("no").isPermanent)
        #expect(MotionClientError.frameUnavailable("no").isPermanent)
        #expect(MotionClientError.protocolMismatch("version 2").isPermanent)
        #expect(MotionClientError.daemon(.invalidValue, "interval").isPermanent)
    }

    @Test("the description names what went wrong and why")
    func descriptions() {
        #expect("\(MotionClientError.daemonUnreachable("no socket"))" == "motiond is unreachable: no socket")
        #expect("\(MotionClientError.daemon(.invalidValue, "interval must be a number"))" == "invalidValue: interval must be a number")
    }
}
