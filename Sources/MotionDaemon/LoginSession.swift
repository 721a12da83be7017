import CSystemd
import Glibc

/// Whether a process belongs to the active local login session, as systemd-logind records it
/// (sd-login: the process's session from its cgroup, the session's state from
/// `/run/systemd/sessions`). This is the "person at the device" test: the analog of
/// iio-sensor-proxy's polkit rule for the active session.
enum LoginSession {
    /// Why a process does not count as the active local session's.
    struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        var description: String
    }

    /// The id of the session `pid` runs in, when that session is active, local (not remote,
    /// like ssh) and `uid`'s; otherwise why not.
    static func activeLocal(pid: pid_t, uid: uid_t) -> Result<String, Refusal> {
        var name: UnsafeMutablePointer<CChar>?
        let found = sd_pid_get_session(pid, &name)
        guard found >= 0, let name else {
            return .failure(Refusal(description: "not in a login session"))
        }
        defer { free(name) }
        let session = String(cString: name)
        var owner: uid_t = 0
        guard sd_session_get_uid(name, &owner) >= 0 else {
            return .failure(Refusal(description: "session \(session) is not known to logind"))
        }
        guard owner == uid else {
            return .failure(Refusal(description: "session \(session) belongs to uid \(owner)"))
        }
        guard sd_session_is_active(name) > 0 else {
            return .failure(Refusal(description: "session \(session) is not the active one"))
        }
        guard sd_session_is_remote(name) == 0 else {
            return .failure(Refusal(description: "session \(session) is remote"))
        }
        return .success(session)
    }
}
