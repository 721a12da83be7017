/// Whether iio-sensor-proxy runs on this machine, as far as the caller can tell (the daemon asks
/// the system bus who owns `net.hadess.SensorProxy`, the name it always takes).
/// ``BufferOwnership`` needs to know: iio-sensor-proxy keeps the buffers it reads enabled and
/// opens each device only to read, so such a buffer is its while it runs, and abandoned once it
/// has gone (stopped by a package swap or `systemctl`, leaving its buffers enabled).
public enum SensorProxyPresence: Sendable, Equatable {
    /// It runs; the sentence says how that is known.
    case running(String)
    /// It does not run: the sentence says how that is known.
    case gone(String)
    /// Cannot be told (no system bus, no answer): motiond then leaves its buffers alone.
    case unknown(String)
}
