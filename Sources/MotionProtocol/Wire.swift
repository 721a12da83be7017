/// Constants of the motiond socket protocol (docs/PROTOCOL.md): one JSON object per line each
/// way over a stream Unix socket.
public enum Wire {
    /// The protocol version this code speaks, sent in `hello`. A client that needs another
    /// version should say so and disconnect; fields are only ever added within a version.
    public static let version = 1

    /// Where the daemon listens unless configured otherwise.
    public static let defaultSocketPath = "/run/motiond/motiond.sock"

    /// The longest line either side accepts, bytes including the newline. A longer request is
    /// answered with `lineTooLong` and the connection is closed.
    public static let maximumLineLength = 65_536

    /// The shortest update interval, seconds (100 Hz); shorter requests are clamped to it.
    public static let minimumInterval = 0.01

    /// The longest update interval a subscription may ask for, seconds.
    public static let maximumInterval = 3600.0

    /// The longest latency a batching subscription may ask for, seconds. A batch holds the
    /// values of `latency` seconds, and a client's send queue keeps two batches while it reads:
    /// at 10 s that is at most about 2,000 values of one stream at 100 Hz (about 1.4 MB of
    /// device motion), which keeps what the daemon holds for one client bounded and small next to a
    /// laptop's memory, while a step counter or logger still wakes only every 10 s.
    public static let maximumLatency = 10.0

    /// The hardware periods the daemon runs sensors at, seconds: longer intervals are served by
    /// decimation from the slowest of these.
    public static let hardwarePeriods: ClosedRange<Double> = 0.01...0.1
}
