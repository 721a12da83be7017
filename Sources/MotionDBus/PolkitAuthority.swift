import CSDBus

/// polkit's `CheckAuthorization` through its D-Bus API (`org.freedesktop.PolicyKit1`): the
/// request for one bus client and action, and what the answer means.
enum PolkitAuthority {
    static let name = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"

    /// The call asking whether bus client `sender` may do `action` (subject `system-bus-name`,
    /// no details, no interaction: iio-sensor-proxy's request); nil if it cannot be built.
    static func request(on bus: OpaquePointer, sender: String, action: String) -> OpaquePointer? {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, name, path, interface, "CheckAuthorization") >= 0, let message else { return nil }
        var ok = BusMessage.open(message, "r", "sa{sv}") >= 0
        ok = ok && BusMessage.appendString(message, "system-bus-name") >= 0
        ok = ok && BusMessage.open(message, "a", "{sv}") >= 0
        ok = ok && BusMessage.open(message, "e", "sv") >= 0
        ok = ok && BusMessage.appendString(message, "name") >= 0
        ok = ok && BusMessage.open(message, "v", "s") >= 0
        ok = ok && BusMessage.appendString(message, sender) >= 0
        ok = ok && BusMessage.close(message) >= 0 && BusMessage.close(message) >= 0 && BusMessage.close(message) >= 0
        ok = ok && BusMessage.close(message) >= 0
        ok = ok && BusMessage.appendString(message, action) >= 0
        ok = ok && BusMessage.open(message, "a", "{ss}") >= 0 && BusMessage.close(message) >= 0
        ok = ok && BusMessage.appendUInt32(message, 0) >= 0
        ok = ok && BusMessage.appendString(message, "") >= 0
        guard ok else {
            sd_bus_message_unref(message)
            return nil
        }
        return message
    }

    /// What an answer says.
    enum Answer: Equatable {
        case authorized
        case denied(String)
        /// polkit is not on the bus at all.
        case absent
    }

    static func answer(_ reply: OpaquePointer) -> Answer {
        if sd_bus_message_is_method_error(reply, nil) != 0 {
            let error = sd_bus_message_get_error(reply)
            let errorName = BusMessage.string(error?.pointee.name) ?? "an error"
            if errorName == "org.freedesktop.DBus.Error.ServiceUnknown" || errorName == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                return .absent
            }
            return .denied("polkit failed: \(errorName): \(BusMessage.string(error?.pointee.message) ?? "")")
        }
        guard sd_bus_message_enter_container(reply, BusMessage.type("r"), "bba{ss}") > 0,
              let authorized = BusMessage.readBool(reply) else {
            return .denied("polkit's answer could not be read")
        }
        return authorized ? .authorized : .denied("polkit does not allow it")
    }
}
