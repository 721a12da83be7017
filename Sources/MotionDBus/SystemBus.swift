import CSDBus
import Glibc
import MotionSync

/// Calls on an sd-bus connection that wait for their reply, and the one question motiond asks
/// the system bus outside its D-Bus face: which process owns a well-known name.
public enum SystemBus {
    /// A bus failure or an error reply, with D-Bus's error name first when there is one
    /// (`org.freedesktop.DBus.Error.NameHasNoOwner: …`).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The process that owns `name` on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the
    /// standard socket), or nil when nobody does. Asked on a connection of its own, closed
    /// after; throws when the bus cannot tell (none, refused, no answer within `timeout` s).
    public static func owner(of name: String, timeout: Double = 2) throws(Failure) -> pid_t? {
        var opened: OpaquePointer?
        let result = sd_bus_open_system(&opened)
        guard result >= 0, let bus = opened else { throw Failure(description: "cannot connect to the system bus: \(SystemError(result))") }
        defer { sd_bus_flush_close_unref(bus) }
        do throws(Failure) {
            let reply = try call(on: bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                 argument: name, timeout: timeout)
            guard let pid = reply.readUInt32() else { throw Failure(description: "GetConnectionUnixProcessID answered no process ID") }
            return pid_t(bitPattern: pid)
        } catch where error.description.hasPrefix("org.freedesktop.DBus.Error.NameHasNoOwner") {
            return nil
        }
    }

    /// Calls `member` with one string argument (or none) and waits for the reply: at most
    /// `timeout` seconds, or sd-bus's default (25 s) when nil.
    static func call(on bus: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ member: String,
                     argument: String?, timeout: Double? = nil) throws(Failure) -> BusMessage {
        var created: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &created, destination, path, interface, member)
        guard result >= 0, let created else { throw Failure(description: "cannot call \(member): \(SystemError(result))") }
        let message = BusMessage(owning: created)
        if let argument { result = message.appendString(argument) }
        guard result >= 0 else { throw Failure(description: "cannot call \(member): \(SystemError(result))") }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        result = sd_bus_call(bus, message.pointer, timeout.map { UInt64($0 * 1_000_000) } ?? 0, &error, &reply)
        guard result >= 0, let reply else {
            if let name = error.name {
                throw Failure(description: "\(String(cString: name)): \(error.message.map { String(cString: $0) } ?? "")")
            }
            throw Failure(description: "\(member) failed: \(SystemError(result))")
        }
        return BusMessage(owning: reply)
    }
}
