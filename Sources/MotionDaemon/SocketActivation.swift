import CSystemd
import Glibc

/// Sockets systemd passed to the daemon (socket activation, `motiond.socket`): the first
/// listening stream Unix socket among `sd_listen_fds`, adopted instead of binding one.
enum SocketActivation {
    /// The passed listening Unix stream socket, made non-blocking; nil when the daemon was not
    /// socket-activated. Other passed descriptors are closed.
    static func listeningSocket() -> Int32? {
        let count = sd_listen_fds(1)
        guard count > 0 else { return nil }
        var adopted: Int32?
        for fd in SD_LISTEN_FDS_START..<(SD_LISTEN_FDS_START + count) {
            if adopted == nil, sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                adopted = fd
            } else {
                close(fd)
            }
        }
        return adopted
    }
}
