import CLibIIO
import Glibc
import MotionSync

/// A libiio capture buffer on one device: the enabled channels' scans read from
/// `/dev/iio:deviceN`, `samples` scans per refill. Created after enabling channels; `close`
/// destroys it, which disables the kernel buffer again, and puts back the `buffer/length` and
/// `buffer/watermark` libiio changed. `refill` blocks up to the context timeout; `cancel` (from
/// any thread) makes a blocked `refill` return. `refill` and `close` belong to one thread.
///
/// What libiio 0.24 does with the kernel buffer when it creates one of N samples (local
/// backend, `local_open` in local.c; iiod runs the same code on its side): it disables the
/// buffer, writes `buffer/length` = N, then `buffer/watermark` = N (ignoring ENOENT and
/// EACCES: kernels before 4.2 have none), opens the node, and in the read() mode, the only one
/// mainline kernels offer (its mmap block API is Analog Devices' own), writes `buffer/length` =
/// N × the kernel buffers count before enabling. A blocking refill then polls and reads until N
/// whole scans have arrived — returning once per N scans, though the kernel wakes the blocked
/// thread at every scan it stores (a non-blocking refill takes what is there) — and a driver
/// with a hardware FIFO (bmc150-accel, st_lsm6dsx, inv_mpu6050) sets its FIFO
/// watermark from `buffer/watermark` itself (`hwfifo_watermark` and `hwfifo_enabled` are
/// read-only reports in the ABI). A refill gives up after the context timeout *for the whole
/// batch* and drops the scans it had, so N × the sample period must stay well inside it. libiio
/// restores neither attribute on destroy: that is done here.
// @unchecked: `handle`'s lock orders `close` against `cancel` (iio_buffer_cancel is thread-safe), but
// `refill`, `waitForData`, `step` and `offset` use the libiio buffer outside it so that a blocked
// refill stays cancellable; they and `close` run on one thread at a time (BufferedReader's
// setup on IIOSource's queue, then its reading thread), which the compiler cannot see.
public final class IIOBuffer: @unchecked Sendable {
    /// The libiio buffer until `close`.
    private let handle: Lock<OpaquePointer?>
    public let device: IIODevice
    /// `buffer/length` and `buffer/watermark` as they were before libiio wrote them, in the
    /// order to write them back (the kernel lowers a watermark above the length).
    private let saved: [(attribute: String, value: String)]

    /// Opens the buffer with room for `samples` scans per refill (and so a watermark of
    /// `samples`) and a kernel buffer of `kernelBlocks` such blocks (slack for a reader that is
    /// briefly late).
    public init(device: IIODevice, samples: Int, kernelBlocks: Int) throws(IIOError) {
        saved = ["length", "watermark"].compactMap { attribute in
            (try? device.readBuffer(attribute)).map { (attribute, $0) }
        }
        let rc = iio_device_set_kernel_buffers_count(device.pointer, UInt32(kernelBlocks))
        guard rc >= 0 else { throw IIOError(code: rc, operation: "set kernel buffer count of \(device)") }
        errno = 0
        guard let buffer = iio_device_create_buffer(device.pointer, samples, false) else {
            let error = IIOError(code: errno == 0 ? EIO : errno, operation: "open buffer of \(device)")
            _ = Self.restore(saved, on: device)
            throw error
        }
        handle = Lock(buffer)
        self.device = device
    }

    deinit {
        close()
    }

    private var pointer: OpaquePointer? { handle.withLock { $0 } }

    /// Destroys the buffer (the kernel buffer is disabled) and writes back the length and
    /// watermark it replaced; the writes that failed. Later calls do nothing.
    @discardableResult
    public func close() -> [IIOError] {
        handle.withLock { current in
            guard let buffer = current else { return [] }
            iio_buffer_destroy(buffer)
            current = nil
            return Self.restore(saved, on: device)
        }
    }

    private static func restore(_ saved: [(attribute: String, value: String)], on device: IIODevice) -> [IIOError] {
        var failures: [IIOError] = []
        for (attribute, value) in saved {
            do throws(IIOError) {
                try device.writeBuffer(attribute, value)
            } catch {
                failures.append(error)
            }
        }
        return failures
    }

    /// Makes a blocked or future `refill` return with an error; safe from any thread.
    public func cancel() {
        handle.withLock { current in
            if let buffer = current { iio_buffer_cancel(buffer) }
        }
    }

    /// Waits up to `timeout` seconds for data to be readable.
    public func waitForData(timeout: Double) throws(IIOError) -> Bool {
        guard let pointer else { throw IIOError(code: EBADF, operation: "poll closed buffer of \(device)") }
        var fds = pollfd(fd: iio_buffer_get_poll_fd(pointer), events: Int16(POLLIN), revents: 0)
        guard fds.fd >= 0 else { throw IIOError(code: -fds.fd, operation: "get poll descriptor of \(device)") }
        let rc = poll(&fds, 1, Int32(timeout * 1000))
        guard rc >= 0 else { throw IIOError(code: errno, operation: "poll buffer of \(device)") }
        return rc > 0 && fds.revents & Int16(POLLIN) != 0
    }

    /// Makes `refill` return at once with what the kernel holds (up to a block; EAGAIN when
    /// nothing), instead of waiting for a whole block.
    public func setBlocking(_ blocking: Bool) throws(IIOError) {
        guard let pointer else { throw IIOError(code: EBADF, operation: "set the blocking mode of the closed buffer of \(device)") }
        let rc = iio_buffer_set_blocking_mode(pointer, blocking)
        guard rc >= 0 else { throw IIOError(code: rc, operation: "set the blocking mode of the buffer of \(device)") }
    }

    /// Reads the next block of scans (in non-blocking mode, what is there of it) and calls
    /// `body` with a pointer to each scan in order; returns how many scans it read.
    @discardableResult
    public func refill(_ body: (UnsafeRawPointer) -> Void) throws(IIOError) -> Int {
        guard let pointer else { throw IIOError(code: EBADF, operation: "read closed buffer of \(device)") }
        let n = iio_buffer_refill(pointer)
        guard n >= 0 else { throw IIOError(code: Int32(n), operation: "read buffer of \(device)") }
        let step = iio_buffer_step(pointer)
        guard step > 0, let start = iio_buffer_start(pointer), let end = iio_buffer_end(pointer) else { return 0 }
        var scan = UnsafeRawPointer(start)
        let last = UnsafeRawPointer(end)
        var count = 0
        while scan + step <= last {
            body(scan)
            scan += step
            count += 1
        }
        return count
    }

    /// Bytes per scan.
    public var step: Int {
        guard let pointer else { return 0 }
        return iio_buffer_step(pointer)
    }

    /// Byte offset of `channel`'s data within each scan (the kernel's scan layout, as libiio
    /// computed it from the enabled channels); `nil` when libiio cannot say.
    public func offset(of channel: IIOChannel) -> Int? {
        guard let pointer, let start = iio_buffer_start(pointer), let first = iio_buffer_first(pointer, channel.pointer) else { return nil }
        return first - start
    }
}
