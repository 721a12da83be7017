import Glibc
import MotionConfiguration
import MotionSync

/// The socket file clients connect to: bound by the server and given the configured mode and
/// group, or passed by systemd (socket activation), which then owns it — its permissions and
/// its removal are systemd's. Lives on the server's queue.
struct SocketFile: Sendable {
    let path: String
    private var mode: mode_t
    private var group: SystemGroup?
    /// Whether the listening socket came from systemd.
    private(set) var activated = false

    init(_ socket: DaemonConfiguration.Socket) {
        path = socket.path
        mode = socket.mode
        group = socket.group
    }

    /// The listening socket: `adopted` (passed by systemd), or one bound here with the
    /// configured permissions (nothing is left behind when they cannot be given).
    mutating func listen(adopting adopted: Int32?) throws(SystemError) -> Int32 {
        if let adopted {
            activated = true
            return adopted
        }
        let fd = try UnixSocket.listen(path: path)
        do {
            try setPermissions()
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        return fd
    }

    /// A reloaded configuration's mode and group, given to the file at once when the server
    /// created it.
    mutating func reconfigure(_ new: DaemonConfiguration.Socket) throws(SystemError) {
        guard new.mode != mode || new.group != group else { return }
        mode = new.mode
        group = new.group
        if !activated { try setPermissions() }
    }

    /// Removes the file, unless systemd passed the socket: it stays systemd's, listening for
    /// the next start.
    func remove() {
        if !activated { unlink(path) }
    }

    private func setPermissions() throws(SystemError) {
        guard chmod(path, mode) == 0 else { throw .last("chmod \(path)") }
        if let group, chown(path, uid_t.max, group.id) != 0 {
            throw .last("chown to group \(group.name) \(path)")
        }
    }
}
