/// Whether motiond makes an `hrtimer` software trigger for a device that can buffer but has no
/// trigger of its own (`[iio] software-trigger` in motiond.toml; ``SoftwareTrigger``).
public enum SoftwareTriggerMode: String, Sendable, Hashable, CaseIterable {
    /// Where the kernel offers one (configfs, `iio-trig-hrtimer`) and motiond may make it: every
    /// scan buffered with the kernel's timestamp. Elsewhere such a device is polled, and the log
    /// says why once.
    case auto
    /// Never: such a device's buffer is probed (it stays silent without a trigger) and the device
    /// is polled.
    case off
}
