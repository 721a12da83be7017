import Glibc
import MotionConfiguration
import Testing
import MotionProtocol
@testable import MotionDaemon

/// The policy's decisions for each kind of peer. The login-session test is replaced here by a
/// table; AccessTests (EndToEndTests) runs the real one, sd-login, against real cgroups.
@Suite("Access policy decisions")
struct AccessPolicyTests {
    static let motion = SystemGroup(name: "motion", id: 600)
    static let daemonUser: uid_t = 990

    /// Peers 1000 (pid 100) and 1001 (pid 101) run in the active local session.
    static func policy(group: SystemGroup? = motion, others: DaemonConfiguration.Access.Others = .coarse, rate: Double = 100) -> AccessPolicy {
        var access = DaemonConfiguration.Access()
        access.group = group
        access.others = others
        access.activeSessionRate = rate
        return AccessPolicy(access, daemonUser: daemonUser) { pid, uid in
            pid == 100 && uid == 1000 ? .success("c1") : .failure(LoginSession.Refusal(description: "not in a login session"))
        }
    }

    static func peer(uid: uid_t, gid: gid_t = 100, groups: [gid_t] = [], pid: pid_t = 200) -> PeerCredentials {
        PeerCredentials(pid: pid, uid: uid, gid: gid, groups: groups)
    }

    @Test("root, motiond's own user and the group's members (primary or supplementary) get everything")
    func full() {
        let policy = Self.policy()
        for (peer, reason) in [(Self.peer(uid: 0), "root"), (Self.peer(uid: Self.daemonUser), "motiond's own user"),
                               (Self.peer(uid: 1002, gid: 600), "member of group motion"),
                               (Self.peer(uid: 1003, groups: [27, 600]), "member of group motion")] {
            let decision = policy.decide(peer)
            #expect(decision.grant == .full, "\(peer)")
            #expect(decision.reason == reason)
        }
    }

    @Test("the active session's processes get every stream at the configured rate; 0 turns that tier off")
    func activeSession() {
        let capped = Self.policy(rate: 25).decide(Self.peer(uid: 1000, pid: 100))
        #expect(capped.grant == .activeSession(rate: 25))
        #expect(capped.grant?.minimumInterval == 0.04)
        #expect(capped.reason == "active local session c1")
        #expect(Self.policy(rate: 0).decide(Self.peer(uid: 1000, pid: 100)).grant == .coarse)
        // Another process of the same user outside the session is not the person at the device.
        #expect(Self.policy().decide(Self.peer(uid: 1000, pid: 300)).grant == .coarse)
    }

    @Test("everybody else: coarse, or refused with others = none; the reason says why")
    func others() {
        let coarse = Self.policy().decide(Self.peer(uid: 1005))
        #expect(coarse.grant == .coarse)
        #expect(coarse.reason == "not in group motion, not in a login session")
        let refused = Self.policy(group: nil, others: .nothing).decide(Self.peer(uid: 1005))
        #expect(refused.grant == nil)
        #expect(refused.reason == "no group has full access, not in a login session; others get nothing")
        #expect(Self.policy().decide(nil).grant == .coarse, "unknown credentials get no more than others")
    }

    @Test("no grant is faster than the poll period; a slower cap stays")
    func pollPeriod() {
        var access = DaemonConfiguration.Access()
        access.activeSessionRate = 10
        let policy = AccessPolicy(access, pollPeriod: 0.05, daemonUser: Self.daemonUser) { pid, _ in
            pid == 100 ? .success("c1") : .failure(LoginSession.Refusal(description: "not in a login session"))
        }
        let root = policy.decide(Self.peer(uid: 0)).grant
        #expect(root?.tier == .full && root?.minimumInterval == 0.05 && root?.streams == Set(StreamName.allCases))
        #expect(policy.decide(Self.peer(uid: 1000, pid: 100)).grant?.minimumInterval == 0.1)
        #expect(policy.decide(Self.peer(uid: 1000)).grant?.minimumInterval == 0.05)
    }
}
