import CLibIIO
import Glibc

/// A libiio context: one view of the IIO devices reachable through a URI.
///
/// `local:` reads this machine's sysfs and `/dev/iio:deviceN`; `ip:HOST[:PORT]` talks to an
/// iiod server. A local context is a snapshot: devices added later need a new context.
/// The object owns the C context and destroys it when the last reference goes; devices and
/// channels keep their context alive.
// @unchecked: `pointer` is a libiio context, which the compiler cannot check; a context is
// discovered on IIOSource's queue and then shared by readers, each driving only its own device
// (PollingReader's thread, BufferedReader's thread); context-wide calls after discovery
// (`setTimeout` in a network buffer probe) come only from IIOSource's queue.
public final class IIOContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The URI the context was created from.
    public let uri: String

    /// Creates a context; `timeout` bounds blocking reads (buffer refills, network replies).
    public init(uri: String, timeout: Double = 1.0) throws(IIOError) {
        errno = 0
        guard let context = iio_create_context_from_uri(uri) else {
            let code = errno == 0 ? ENODEV : errno
            throw IIOError(code: code, operation: "open IIO context '\(uri)'")
        }
        pointer = context
        self.uri = uri
        self.timeout = timeout
        setTimeout(timeout)
    }

    /// The timeout for blocking operations, in seconds.
    public let timeout: Double

    /// Changes the timeout of blocking operations (seconds); affects every user of the context.
    public func setTimeout(_ seconds: Double) {
        _ = iio_context_set_timeout(pointer, UInt32(max(1, (seconds * 1000).rounded())))
    }

    deinit {
        iio_context_destroy(pointer)
    }

    /// True for the local backend (sysfs on this machine), where udev metadata applies.
    public var isLocal: Bool { uri.hasPrefix("local:") }

    /// Every IIO device of the context, triggers included, in libiio's order.
    public var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { index in
            iio_context_get_device(pointer, index).map { IIODevice(pointer: $0, context: self) }
        }
    }

    /// The device with the given id (`iio:device0`), name or label.
    public func device(named name: String) -> IIODevice? {
        iio_context_find_device(pointer, name).map { IIODevice(pointer: $0, context: self) }
    }
}
