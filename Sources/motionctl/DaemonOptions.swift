import ArgumentParser
import MotionProtocol
import MotionToolSupport

/// The options of every command that talks to a running motiond: its socket, and how long to
/// keep trying while it may still be starting. ``run(_:)`` connects and turns a failure to
/// talk to the daemon into its message and exit status (``DaemonConnection/Failure/exitCode``).
struct DaemonOptions: ParsableArguments {
    @Option(name: .customLong("socket"), help: "The daemon's socket (default: $MOTIOND_SOCKET, else \(Wire.defaultSocketPath)).")
    var socketPath: String?

    /// The socket to use.
    var socket: String { DaemonSocket.path(socketPath) }

    @Option(help: "Keep trying to reach the daemon for this many seconds (it may still be starting).")
    var wait = 0.0

    @Option(help: "Seconds to wait for the daemon's hello once connected, and for each reply to a request.")
    var replyTimeout = DaemonConnection.defaultReplyTimeout

    func validate() throws {
        try TimeOption.check(wait, "--wait", allowZero: true)
        try TimeOption.check(replyTimeout, "--reply-timeout")
    }

    /// The exit statuses every daemon command shares, for its `discussion`.
    static let exitStatuses = """
        Exit status: 0 done; 1 failed (the message says why); 64 usage; 69 motiond cannot be \
        reached, closed the connection, or did not answer (no hello or no reply within \
        --reply-timeout); 75 motiond ended a monitor or record in order, with a goodbye (it \
        is stopping or restarting, or asked clients to reconnect); 76 it speaks another \
        protocol; 77 its access policy refuses this user or stream.
        """

    /// A stream ended by the daemon's goodbye (EX_TEMPFAIL: it stopped, restarts or asked
    /// clients to reconnect; trying again later may work), which is not unreachability.
    static let goodbye = ExitCode(75)

    /// Connects (reading the hello) and runs `body` on the connection.
    func run(_ body: (DaemonConnection) throws -> Void) throws {
        do {
            try body(try DaemonConnection(path: socket, wait: wait, replyTimeout: replyTimeout))
        } catch let failure as DaemonConnection.Failure {
            Console.error("\(failure)")
            throw ExitCode(failure.exitCode)
        }
    }
}
