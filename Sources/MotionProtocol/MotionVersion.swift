/// The version of motiond and its tools: the one place it is written. `--version` of motiond,
/// motionctl and motiond-rotate prints it, the daemon sends it in its hello and status
/// (``daemon``), and `make deb` names the package after it (the Makefile reads it from this
/// file); CHANGELOG.md's newest entry carries it too (a test holds them together).
public enum MotionVersion {
    /// Semantic version: major.minor.patch.
    public static let current = "0.19.0"

    /// What the daemon calls itself on the wire (`hello` and `status` field `daemon`).
    public static let daemon = "motiond \(current)"
}
