import CLibraryOutput
import Glibc
import Logging
import MotionSync

/// libiio's own messages, taken off standard error. libiio 0.24 prints to the C `stderr`
/// stream and has no runtime log level: `WARNING: High-speed mode not enabled` at every buffer
/// open on kernels without Analog Devices' mmap interface (all mainline ones), bursts of
/// `ERROR: …` while a device goes away. In a service that text lands in the journal
/// unstructured, beside motiond's own lines, which already report every fault once and name
/// the device. ``capture(logger:)`` replaces the `stderr` stream (not descriptor 2) with one
/// that passes every write through at once — motiond's own text lines, anything else — except
/// libiio's, which become one debug line per distinct message.
public enum LibraryOutput {
    /// Who logs libiio's messages, and those already logged.
    private static let state = Lock<(logger: Logger?, seen: Set<String>)>((nil, []))

    /// libiio's message prefixes (its `IIO_ERROR`, `IIO_WARNING`, `IIO_INFO`, `IIO_DEBUG`).
    private static let prefixes = ["ERROR: ", "WARNING: ", "INFO: ", "DEBUG: "]

    /// Takes libiio's messages over from now on (once; later calls change the logger only).
    public static func capture(logger: Logger) {
        let first = state.withLock { state in
            defer { state.logger = logger }
            return state.logger == nil
        }
        guard first else { return }
        if motiond_replace_stderr(write) != 0 {
            logger.notice("cannot take libiio's messages off standard error: \(SystemError.last())")
        }
    }

    /// Whether a write to `stderr` is one of libiio's messages.
    static func isLibIIOMessage(_ text: String) -> Bool {
        prefixes.contains { text.hasPrefix($0) }
    }

    private static let write: motiond_output_writer = { _, buffer, size in
        guard let buffer, size > 0 else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
        let text = String(decoding: bytes, as: UTF8.self)
        guard isLibIIOMessage(text) else {
            _ = writeAll(bytes, to: STDERR_FILENO)
            return size
        }
        let message = text.trimmingWhitespace()
        let logger = state.withLock { state in state.seen.insert(message).inserted ? state.logger : nil }
        logger?.debug("libiio: \(message)")
        return size
    }

}
