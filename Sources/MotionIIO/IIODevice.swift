import FoundationEssentials

import CLibIIO
import Glibc

/// One IIO device (or trigger) of an ``IIOContext``.
///
/// Device-level attributes (`sampling_frequency`, `in_scale`, `mount_matrix`,
/// `current_timestamp_clock`) are read here by name; channel attributes (separate and shared by
/// type) through ``IIOChannel``: iiod only serves each through its own call.
// @unchecked: `pointer` is a libiio device (owned by `context`), which the compiler cannot
// check; a device is driven from one place at a time: IIOSource's queue while it is discovered
// and set up, then only by the one reader it is given (PollingReader's thread, or BufferedReader's
// thread until teardown).
public struct IIODevice: @unchecked Sendable, CustomStringConvertible {
    let pointer: OpaquePointer
    /// Keeps the C context (and so `pointer`) alive.
    public let context: IIOContext

    /// `iio:deviceN` (or `triggerN`).
    public var id: String { String(cString: iio_device_get_id(pointer)) }
    /// The driver-chosen part name, e.g. `mpu6050`, `accel_3d`.
    public var name: String? { iio_device_get_name(pointer).map { String(cString: $0) } }
    /// The optional `label` attribute (e.g. `accel-display`).
    public var label: String? { iio_device_get_label(pointer).map { String(cString: $0) } }
    public var isTrigger: Bool { iio_device_is_trigger(pointer) }

    /// The number in `iio:deviceN`, if any.
    public var number: Int? {
        guard let colon = id.lastIndex(where: { !$0.isNumber }) else { return nil }
        return Int(id[id.index(after: colon)...])
    }

    /// The input channel with the given libiio id (`accel_x`, `timestamp`).
    public func inputChannel(_ id: String) -> IIOChannel? {
        iio_device_find_channel(pointer, id, false).map { IIOChannel(pointer: $0, device: self) }
    }

    /// Reads a device attribute as text, trailing whitespace removed.
    public func read(_ attribute: String) throws(IIOError) -> String {
        try IIOError.readText("read \(attribute) of \(self)") { iio_device_attr_read(pointer, attribute, $0, $1) }
    }

    /// Writes a device attribute.
    public func write(_ attribute: String, _ value: String) throws(IIOError) {
        try IIOError.check(iio_device_attr_write(pointer, attribute, value), "write '\(value)' to \(attribute) of \(self)")
    }

    /// Reads an attribute of the device's buffer (`buffer/enable`, `buffer/length`).
    public func readBuffer(_ attribute: String) throws(IIOError) -> String {
        try IIOError.readText("read buffer/\(attribute) of \(self)") { iio_device_buffer_attr_read(pointer, attribute, $0, $1) }
    }

    /// Writes an attribute of the device's buffer (`buffer/watermark`, `buffer/hwfifo_timeout`).
    public func writeBuffer(_ attribute: String, _ value: String) throws(IIOError) {
        try IIOError.check(iio_device_buffer_attr_write(pointer, attribute, value), "write '\(value)' to buffer/\(attribute) of \(self)")
    }

    /// The trigger currently attached, `nil` when none is set. Throws when the device has no
    /// trigger support at all (ENOENT).
    public func currentTrigger() throws(IIOError) -> IIODevice? {
        var trigger: OpaquePointer?
        let rc = iio_device_get_trigger(pointer, &trigger)
        guard rc >= 0 else { throw IIOError(code: rc, operation: "read trigger of \(self)") }
        return trigger.map { IIODevice(pointer: $0, context: context) }
    }

    /// Attaches a trigger (or detaches with `nil`).
    public func setTrigger(_ trigger: IIODevice?) throws(IIOError) {
        let rc = iio_device_set_trigger(pointer, trigger?.pointer)
        guard rc >= 0 else { throw IIOError(code: rc, operation: "set trigger of \(self) to \(trigger?.name ?? "none")") }
    }

    public var description: String {
        if let name { return "\(id) (\(name))" }
        return id
    }
}
