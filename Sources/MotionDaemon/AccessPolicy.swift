import Glibc
import MotionConfiguration
import MotionProtocol

/// The access policy (`[access]` in the configuration): what a connection may receive, decided
/// from the peer's credentials when it connects.
///
/// - root, the daemon's own user (it could read the daemon's memory anyway) and members of the
///   configured group: every stream at any rate (``AccessGrant/full``);
/// - a process of the active local login session, when `active-session-rate` is above 0:
///   every stream, at most at that rate (``AccessGrant/activeSession(rate:)``);
/// - everybody else: orientation, tilt, shake and availability (`others = "coarse"`), or nothing
///   (`others = "none"`: the connection is refused).
///
/// No grant is faster than the configured poll period: the hello tells every client the
/// shortest interval it can get.
struct AccessPolicy: Sendable {
    /// What the policy decided for one peer, and why (for the log).
    struct Decision: Sendable {
        /// nil: the connection is refused.
        var grant: AccessGrant?
        var reason: String
    }

    let access: DaemonConfiguration.Access
    /// Seconds: the shortest interval any grant allows (`poll-period`).
    let pollPeriod: Double
    /// The daemon's effective user.
    let daemonUser: uid_t
    /// The login-session test; sd-login unless a unit test replaces it.
    let session: @Sendable (_ pid: pid_t, _ uid: uid_t) -> Result<String, LoginSession.Refusal>

    init(_ access: DaemonConfiguration.Access, pollPeriod: Double = Wire.minimumInterval, daemonUser: uid_t = geteuid(),
         session: @escaping @Sendable (_ pid: pid_t, _ uid: uid_t) -> Result<String, LoginSession.Refusal> = LoginSession.activeLocal) {
        self.access = access
        self.pollPeriod = pollPeriod
        self.daemonUser = daemonUser
        self.session = session
    }

    func decide(_ peer: PeerCredentials?) -> Decision {
        var decision = tier(of: peer)
        if let grant = decision.grant, grant.minimumInterval < pollPeriod {
            decision.grant = AccessGrant(tier: grant.tier, streams: grant.streams, minimumInterval: pollPeriod)
        }
        return decision
    }

    private func tier(of peer: PeerCredentials?) -> Decision {
        guard let peer else { return limited("credentials unknown") }
        if peer.uid == 0 { return Decision(grant: .full, reason: "root") }
        if peer.uid == daemonUser { return Decision(grant: .full, reason: "motiond's own user") }
        if let group = access.group, peer.isMember(of: group.id) {
            return Decision(grant: .full, reason: "member of group \(group.name)")
        }
        let outside = access.group.map { "not in group \($0.name)" } ?? "no group has full access"
        guard access.activeSessionRate > 0 else { return limited(outside) }
        switch session(peer.pid, peer.uid) {
        case .success(let id):
            return Decision(grant: .activeSession(rate: access.activeSessionRate), reason: "active local session \(id)")
        case .failure(let refusal):
            return limited("\(outside), \(refusal)")
        }
    }

    /// What `others` gives.
    private func limited(_ why: String) -> Decision {
        switch access.others {
        case .coarse: return Decision(grant: .coarse, reason: why)
        case .nothing: return Decision(grant: nil, reason: "\(why); others get nothing")
        }
    }
}
